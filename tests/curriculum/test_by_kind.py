"""Pass rate and difficulty per kind and per family: a kind pools its families' rollouts; its target is the mean of
its families' targets; a family not attempted yet shows its target alone."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from spade.curriculum.by_kind import group_rows, kind_rows


@dataclass(frozen=True)
class Out:
    kind: str
    family: str
    claimed: float
    attempts: int
    passed: int


def test_rows_per_kind_then_family_with_pooled_pass_rates_and_mean_targets():
    outcomes = [Out("program", "program_grid", 0.4, 4, 1), Out("program", "program_words", 0.2, 4, 3),
                Out("python_function", "sorting", 0.3, 8, 8), Out("program", "program_grid", 0.6, 0, 0)]
    targets = {"program_grid": 0.5, "program_words": 0.3, "sorting": 0.3, "digits": 0.2}
    rows = group_rows(outcomes, targets, {"digits": "python_function", "program_grid": "program"})
    assert [(r.kind, r.family) for r in rows] == [
        ("program", None), ("program", "program_grid"), ("program", "program_words"),
        ("python_function", None), ("python_function", "digits"), ("python_function", "sorting")]
    program, grid = rows[0], rows[1]
    assert (program.tasks, program.rollouts, program.pass_rate) == (3, 8, 0.5)
    assert program.target == pytest.approx(0.4) and program.claimed == pytest.approx(0.3)
    assert (grid.pass_rate, grid.claimed, grid.target) == (0.25, 0.4, 0.5)  # the unattempted task is not averaged
    digits = rows[4]
    assert (digits.tasks, digits.rollouts, digits.pass_rate, digits.target) == (0, 0, None, 0.2)
    assert rows[3].target == pytest.approx(0.25) and rows[3].pass_rate == 1.0


def test_registered_families_are_placed_under_their_kind():
    rows = kind_rows([], {"program_numbers": 0.3, "sorting": 0.5, "external": 0.4})
    assert [(r.kind, r.family) for r in rows if r.family] == [
        ("program", "program_numbers"), ("python_function", "external"), ("python_function", "sorting")]
