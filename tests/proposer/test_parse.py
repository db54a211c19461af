"""Parsing proposer answers: every kind of garbage is a reason code, good answers become complete proposals."""

from __future__ import annotations

import json

import pytest

from spade.generate.proposer import Proposal, Rejection, parse_answer

CODE_FIRST = '''Here is an exercise:
```python
def clamp_sum(xs: list[int], limit: int = 10) -> int:
    """Return the sum of the list, but never more than limit.

    >>> clamp_sum([1, 2])
    3
    """
    return min(sum(xs), limit)

print(clamp_sum([5, 9], 12))
assert clamp_sum([1, 1], limit=1) == 1
```
Also clamp_sum([20]) == 10.
'''


def test_a_code_first_answer_gives_signature_docstring_reference_and_inputs():
    p = parse_answer(CODE_FIRST, "code_first")
    assert isinstance(p, Proposal)
    assert p.entry_point == "clamp_sum"
    assert p.signature == "def clamp_sum(xs: list[int], limit: int=10) -> int:"
    assert p.description == "Return the sum of the list, but never more than limit."
    assert "print(" not in p.reference and "assert" not in p.reference
    assert sorted(map(repr, p.inputs)) == sorted(map(repr, [([5, 9], 12), ([1, 1], 1), ([1, 2],), ([20],)]))
    stated = {repr(p.inputs[i]): v for i, v in p.stated.items()}
    assert stated == {"([1, 1], 1)": 1, "([1, 2],)": 3, "([20],)": 10}


@pytest.mark.parametrize("text, reason", [
    ("I cannot think of one.", "no_code"),
    ("```python\ndef f(x:\n    return x\n```", "syntax_error"),
    ("```python\nx = 3\nprint(x)\n```\ndef is a keyword", "no_code"),
    ("```python\nclass A:\n    def f(self):\n        return 1\n```", "no_function"),
    ('```python\ndef f(x: int) -> int:\n    return x\n\nprint(f(1))\n```', "no_docstring"),
    ('```python\ndef f(x: int) -> int:\n    """Twice x."""\n    return 2 * x\n```', "no_inputs"),
    ('```python\ndef f(x: int) -> int:\n    """Twice x."""\n    return 2 * x\n\nprint(f(y))\n```', "no_inputs"),
])
def test_code_first_garbage_is_rejected_with_a_reason(text, reason):
    result = parse_answer(text, "code_first")
    assert isinstance(result, Rejection) and result.reason == reason, result


def test_a_spec_answer_in_json_with_a_fence_around_it_is_read():
    obj = {"description": "Double it.", "signature": "def double(x: int) -> int:",
           "reference": "def double(x):\n    return 2 * x\n", "inputs": [[1], [2], 3], "expected": [2, 4, 6]}
    p = parse_answer("Sure!\n```json\n" + json.dumps(obj) + "\n```", "spec")
    assert isinstance(p, Proposal)
    assert p.signature == "def double(x: int) -> int:"  # the stated, annotated signature wins
    assert p.inputs == ((1,), (2,), (3,)) and p.stated == {0: 2, 1: 4, 2: 6}


def test_a_spec_answer_in_the_write_up_schema_is_read():
    obj = {"description": "Sum a list.", "reference_solution": "def total(xs: list[int]) -> int:\n    return sum(xs)",
           "test_cases": [{"input": [[1, 2]], "expected": 3}, {"input": [[]]}]}
    p = parse_answer(json.dumps(obj), "spec")
    assert isinstance(p, Proposal)
    assert p.inputs == (([1, 2],), ([],)) and p.stated == {0: 3}


@pytest.mark.parametrize("text, reason", [
    ("no json here", "not_json"),
    ('{"description": "x"}', "missing_field"),
    ('{"description": 3, "reference": "def f(): pass"}', "bad_field_type"),
    ('{"description": "x", "reference": "def f(:"}', "syntax_error"),
    ('{"description": "x", "signature": "def g(a):", "reference": "def f(a):\\n    return a", "inputs": [[1]]}',
     "no_function"),
    ('{"description": "x", "reference": "def f(a):\\n    return a"}', "no_inputs"),
    ('{"description": "x", "reference": "def f(a):\\n    return a", "inputs": [null]}', "bad_inputs"),
])
def test_spec_garbage_is_rejected_with_a_reason(text, reason):
    result = parse_answer(text, "spec")
    assert isinstance(result, Rejection) and result.reason == reason, result


def test_an_answer_cut_off_after_its_function_keeps_the_complete_part():
    text = ('```python\ndef half(x: int) -> int:\n    """Half of x, rounded down."""\n    return x // 2\n\n'
            'print(half(8))\nprint(half(3')
    p = parse_answer(text, "code_first")
    assert isinstance(p, Proposal) and p.inputs == ((8,),)
