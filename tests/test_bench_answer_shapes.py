"""bench/answer_shapes.py: an answer is classified by what its extracted code holds for the entry function."""


import pytest

from tests.bench_scripts import bench_script


def _bench():
    return bench_script("answer_shapes")


@pytest.mark.parametrize("code, shape, statements", [
    ('def f(x):\n    """Sum."""\n    t = 0\n    for v in x:\n        t += v\n    return t\n', "has_body", 4),
    ('def f(x):\n    """Only the docstring, restated."""\n', "docstring_only", 0),
    ("def f(x):\n    pass\n", "pass_only", 1),
    ("def g(x):\n    return x\n", "no_entry", 0),
    ("def f(x:\n", "syntax_error", 0),
    ("   \n", "no_code", 0),
])
def test_shapes(code, shape, statements):
    assert _bench().shape_of(code, "f") == (shape, statements)


def test_flips_are_counted_by_the_first_models_shape():
    first = [{"task": "a", "shape": "has_body", "passed": False},
             {"task": "b", "shape": "no_code", "passed": False},
             {"task": "c", "shape": "has_body", "passed": True},
             {"task": "d", "shape": "docstring_only", "passed": False}]
    other = [{"task": "a", "shape": "has_body", "passed": True},
             {"task": "b", "shape": "has_body", "passed": True},
             {"task": "c", "shape": "docstring_only", "passed": False},
             {"task": "d", "shape": "docstring_only", "passed": False}]
    f = _bench().flips(first, other)
    assert f["gained"] == {"has_body": 1, "no_code": 1}
    assert f["lost"] == {"has_body": 1}


def test_summary_counts_passes_per_shape():
    rows = [{"task": "a", "shape": "has_body", "passed": True, "statements": 2, "new_tokens": 10},
            {"task": "b", "shape": "has_body", "passed": False, "statements": 1, "new_tokens": 20},
            {"task": "c", "shape": "no_code", "passed": False, "statements": 0, "new_tokens": 30}]
    line = _bench().summary("base", rows)
    assert "has_body 2 (1 pass), no_code 1 (0 pass) (of 3; 1 pass)" in line
    assert "mean new tokens 20.0" in line and "mean body statements 1.50" in line
