import ast

from spade.generate import draft_task
from spade.generate.registry import resolve_families
from spade.validate.mutants import mutants

PYTHON_FAMILIES = [f.name for f in resolve_families([])]  # the Python function families; other kinds test theirs

SOURCE = """def f(xs: list[int], k: int) -> int:
    '''Docstring.'''
    total = 0
    for x in xs:
        if x > k and not x == 3:
            total += x
        else:
            total -= 1
    return max(total, -1)
"""


def test_mutants_compile_differ_from_the_original_and_from_each_other():
    out = mutants(SOURCE, 100)
    original = ast.unparse(ast.parse(SOURCE))
    assert len(out) >= 10
    assert len(set(out)) == len(out)
    assert original not in out
    for m in out:
        compile(m, "<m>", "exec")


def test_mutants_cover_operators_comparisons_constants_branches_and_builtins():
    out = "\n".join(mutants(SOURCE, 100))
    for fault in ("total -= x", "x <= k", "total = 1", "min(total", " or ", "pass"):
        assert fault in out, fault


def test_a_conditional_expression_swaps_its_branches():
    out = mutants("def f(x):\n    return 'a' if x else 'b'\n")
    assert "def f(x):\n    return 'b' if x else 'a'" in out


def test_mutants_are_deterministic_and_capped():
    assert mutants(SOURCE, 5) == mutants(SOURCE, 5)
    assert len(mutants(SOURCE, 5)) == 5


def test_nearly_every_family_reference_has_mutants():
    drafts = [draft_task(name, d, 0, i, 3, 5) for name in PYTHON_FAMILIES for d in (0.0, 0.5, 1.0) for i in range(3)]
    with_mutants = sum(1 for d in drafts if mutants(d.reference_solution, 30))
    assert with_mutants >= 0.95 * len(drafts)


def test_slices_and_dict_comprehensions_are_mutated():
    assert mutants("def f(xs, k):\n    return xs[k:]\n") == ["def f(xs, k):\n    return xs[:k]"]
    assert "{k: v for" in mutants("def f(d):\n    return {v: k for k, v in d.items()}\n")[0]
