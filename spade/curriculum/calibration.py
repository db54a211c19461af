"""Difficulty calibration: how well a generator's claimed difficulty predicts the policy's measured one.

In: per task, the group it belongs to (its family, its proposer), its claimed difficulty and the policy's
attempts and passes on it. Out: one `CalibrationRow` per group: tasks, rollouts, mean absolute error between
claimed and measured difficulty (measured = 1 - pass rate), bias (measured - claimed: > 0 means harder than
claimed) and the rank correlation of the two (does a higher claim mean a harder task at all?).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class TaskMeasure:
    group: str
    claimed: float
    attempts: int
    passed: int

    @property
    def measured(self) -> float:
        return 1.0 - self.passed / self.attempts


@dataclass(frozen=True, slots=True)
class CalibrationRow:
    group: str
    tasks: int
    rollouts: int
    mae: float
    bias: float
    rank_corr: float | None  # Spearman; None with fewer than 3 tasks or a constant side


def calibration_table(measures: Iterable[TaskMeasure]) -> list[CalibrationRow]:
    """Rows sorted by group; tasks never attempted are left out (they have no measured difficulty)."""
    by_group: dict[str, list[TaskMeasure]] = defaultdict(list)
    for m in measures:
        if m.attempts > 0:
            by_group[m.group].append(m)
    rows = []
    for group in sorted(by_group):
        ms = by_group[group]
        errors = [m.measured - m.claimed for m in ms]
        rows.append(CalibrationRow(
            group=group, tasks=len(ms), rollouts=sum(m.attempts for m in ms),
            mae=sum(abs(e) for e in errors) / len(ms), bias=sum(errors) / len(ms),
            rank_corr=spearman([m.claimed for m in ms], [m.measured for m in ms]),
        ))
    return rows


def spearman(xs: list[float], ys: list[float]) -> float | None:
    """Pearson correlation of average ranks (ties share their mean rank)."""
    if len(xs) < 3:
        return None
    rx, ry = _ranks(xs), _ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    vx = sum((a - mx) ** 2 for a in rx)
    vy = sum((b - my) ** 2 for b in ry)
    if vx == 0 or vy == 0:
        return None
    return cov / (vx * vy) ** 0.5


def _ranks(values: list[float]) -> list[float]:
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2
        i = j + 1
    return ranks


class Outcome(Protocol):
    """One task's claimed difficulty and the policy's attempts on it (spade.store.views.TaskOutcome)."""

    family: str
    proposer: str
    claimed: float
    attempts: int
    passed: int


def calibration(tasks: Sequence[Outcome]) -> list[CalibrationRow]:
    """Claimed vs measured difficulty per family ("family:NAME") and per proposer ("proposer:SOURCE")."""
    return calibration_table(
        [TaskMeasure(f"family:{t.family}", t.claimed, t.attempts, t.passed) for t in tasks]
        + [TaskMeasure(f"proposer:{t.proposer}", t.claimed, t.attempts, t.passed) for t in tasks]
    )
