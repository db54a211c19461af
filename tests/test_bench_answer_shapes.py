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
