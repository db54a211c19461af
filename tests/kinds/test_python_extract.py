"""The forgiving extractor on realistic messy completions (they continue after the prefilled opening fence)."""

import pytest

from spade.kinds.python_function.extract import extract_code

ADD = "def add(a, b):\n    return a + b\n"

CASES = [
    ("clean block closed by a fence", "def add(a, b):\n    return a + b\n```", ADD),
    ("trailing prose after the fence", "def add(a, b):\n    return a + b\n```\n\nThis function adds two numbers.", ADD),
    ("unclosed block cut by the token limit", "def add(a, b):\n    return a + b\n", ADD),
    ("prose with no closing fence", "def add(a, b):\n    return a + b\n\nThis function returns the sum.", ADD),
    ("empty fence then the real block", "```\n\nHere it is:\n```python\ndef add(a, b):\n    return a + b\n```", ADD),
    ("example prints and asserts dropped", "def add(a, b):\n    return a + b\n\nprint(add(1, 2))\nassert add(1, 1) == 3\n```", ADD),
    ("main guard dropped", "def add(a, b):\n    return a + b\n\nif __name__ == '__main__':\n    print(add(2, 3))\n```", ADD),
    ("language tag variants", "```py\ndef add(a, b):\n    return a + b\n```", ADD),
]


@pytest.mark.parametrize("name,completion,expected", CASES, ids=[c[0] for c in CASES])
def test_extractor_recovers_the_function_from_messy_completions(name, completion, expected):
    assert extract_code(completion, "add") == expected


def test_the_block_that_defines_the_entry_point_wins_over_an_earlier_helper_block():
    completion = "def helper(x):\n    return x\n```\nThen:\n```python\ndef add(a, b):\n    return helper(a) + b\n```"
    assert "def add" in extract_code(completion, "add")
    assert "def helper" not in extract_code(completion, "add")


def test_first_block_is_used_when_no_block_defines_the_entry_point():
    completion = "def plus(a, b):\n    return a + b\n```\n```python\ndef minus(a, b):\n    return a - b\n```"
    assert extract_code(completion, "add").startswith("def plus")


def test_bare_code_with_prose_before_is_found_without_a_prefill():
    completion = "Sure! Here is the function:\n\ndef add(a, b):\n    return a + b\n\nIt adds a and b."
    assert extract_code(completion, "add", prefilled=False) == ADD


def test_model_that_skips_the_opening_fence_still_yields_code():
    completion = "def add(a, b):\n    return a + b\n```\nExplanation: uses +."
    assert extract_code(completion, "add", prefilled=False) == ADD


def test_imports_decorators_and_constants_are_kept():
    completion = "import math\nSCALE = 2\n\n@staticmethod\ndef area(r):\n    return SCALE * math.pi * r\n```"
    code = extract_code(completion, "area")
    assert code.startswith("import math\nSCALE = 2\n@staticmethod\ndef area(r):")


def test_truncated_function_body_keeps_the_longest_parseable_part():
    completion = "def add(a, b):\n    total = a + b\n    return total\n\ndef other(x):\n    return (x +"
    assert extract_code(completion, "add") == "def add(a, b):\n    total = a + b\n    return total\n"


@pytest.mark.parametrize("completion", [
    "",
    "```",
    "```\n```\n```",
    "I cannot help with that.",
    "print('hello')\n```",
    "def add(a, b)\n    return a +\n```",
    "x = 1\ny = 2\n```",
])
def test_no_usable_code_gives_the_empty_string(completion):
    assert extract_code(completion, "add") == ""


def test_windows_line_endings_are_accepted():
    assert extract_code("def add(a, b):\r\n    return a + b\r\n```", "add") == ADD


def test_indented_block_is_dedented():
    assert extract_code("    def add(a, b):\n        return a + b\n```", "add") == ADD
