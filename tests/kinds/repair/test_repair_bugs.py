"""Bugs for repair tasks: SPADE's own mutations, one to three in separate places, named by kind, deterministic."""

from __future__ import annotations

import ast
import random

import pytest

from spade.generate import draft_task
from spade.kinds.repair.bugs import (
    BRANCH,
    BUILTIN,
    COMPARISON,
    CONSTANT,
    LOGIC,
    OPERATOR,
    SLICE,
    bugs,
    changed_lines,
    fault_kind,
)
from spade.validate.mutants import mutants

SOURCE = """def f(xs: list[int], k: int) -> int:
    total = 0
    for x in xs:
        if x > k and not x == 3:
            total += x
        else:
            total -= 1
    return max(total, -1)
"""
ORIGINAL = ast.unparse(ast.parse(SOURCE))


@pytest.mark.parametrize("count", [1, 2, 3])
def test_each_bug_has_as_many_faults_in_separate_places_as_asked(count):
    found = bugs(SOURCE, count, None, random.Random(1), 4)
    assert len(found) == 4 and len({b.code for b in found}) == 4
    for bug in found:
        assert len(bug.kinds) == count
        assert changed_lines(ORIGINAL, bug.code)[0] == count
        assert bug.code != ORIGINAL
        compile(bug.code, "<bug>", "exec")
        assert all(1 <= line <= len(bug.code.splitlines()) for line in bug.lines)


def test_single_bugs_are_the_mutant_makers_own_mutants():
    assert {b.code for b in bugs(SOURCE, 1, None, random.Random(0), 100)} <= set(mutants(SOURCE, 100))


def test_bugs_are_a_pure_function_of_their_arguments():
    assert bugs(SOURCE, 2, None, random.Random(5), 3) == bugs(SOURCE, 2, None, random.Random(5), 3)
    assert bugs(SOURCE, 2, None, random.Random(5), 3) != bugs(SOURCE, 2, None, random.Random(6), 3)


def test_a_kind_filter_keeps_only_faults_of_those_kinds():
    for kinds in ({OPERATOR}, {COMPARISON}, {CONSTANT}, {BRANCH}, {BUILTIN}):
        found = bugs(SOURCE, 1, frozenset(kinds), random.Random(0), 10)
        assert found and all(set(b.kinds) <= kinds for b in found), kinds


@pytest.mark.parametrize(("after", "kind"), [
    ("total -= x", OPERATOR), ("x <= k", COMPARISON), ("total = 1", CONSTANT), ("min(total", BUILTIN),
    (" or ", LOGIC), ("pass", BRANCH),
])
def test_each_mutation_is_named_by_its_kind(after, kind):
    mutant = next(m for m in mutants(SOURCE, 100) if after in m and m.count(after) > ORIGINAL.count(after))
    assert fault_kind(ORIGINAL, mutant) == kind


def test_swapped_slices_and_conditional_arms_are_named():
    assert fault_kind("def f(xs, k):\n    return xs[k:]", "def f(xs, k):\n    return xs[:k]") == SLICE
    assert fault_kind("def f(x):\n    return 'a' if x else 'b'", "def f(x):\n    return 'b' if x else 'a'") == BRANCH


def test_a_second_fault_that_undoes_the_first_is_never_a_bug():
    for bug in bugs("def f(a, b):\n    return a + b\n", 2, None, random.Random(0), 10):
        assert bug.code != "def f(a, b):\n    return a + b"


@pytest.mark.parametrize("family", ["repair_operator", "repair_boundary", "repair_branch", "repair_multi"])
def test_repair_families_draft_deterministically_with_bugs_counted_by_difficulty(family):
    for d in (0.0, 0.5, 1.0):
        a, b = draft_task(family, d, 3, 7, 3, 5), draft_task(family, d, 3, 7, 3, 5)
        assert a == b and a.kind == "repair"
        assert a.params["candidates"] and a.params["base_family"]
        assert all(len(c["kinds"]) == a.params["bugs"] for c in a.params["candidates"])
    assert draft_task(family, 1.0, 3, 7, 3, 5).params["bugs"] > draft_task(family, 0.0, 3, 7, 3, 5).params["bugs"]
    assert draft_task(family, 0.0, 3, 7, 3, 5) != draft_task(family, 0.0, 3, 8, 3, 5)
