"""Pass rate and difficulty per task kind and per family, for `spade status` and `spade report`.

In: per-task outcomes (kind, family, claimed difficulty, attempts, passes) and the controller's current target
difficulty per family. Out: `GroupRow`s, one per kind (its families together) followed by one per family of it.
A kind's target difficulty is the mean of its families' targets; its pass rate pools its rollouts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol


class Outcome(Protocol):
    kind: str
    family: str
    claimed: float
    attempts: int
    passed: int


@dataclass(frozen=True, slots=True)
class GroupRow:
    kind: str
    family: str | None
    """None on a kind's own row."""
    tasks: int
    rollouts: int
    pass_rate: float | None
    """Share of rollouts that passed (None without rollouts)."""
    claimed: float | None
    """Mean claimed difficulty of the group's tasks that were attempted."""
    target: float | None
    """The controller's current target difficulty (a kind's: the mean over its families)."""

    @property
    def group(self) -> str:
        return self.kind if self.family is None else f"  {self.family}"


def group_rows(outcomes: Iterable[Outcome], targets: Mapping[str, float],
               kind_of_family: Mapping[str, str]) -> list[GroupRow]:
    """Rows per kind, then per family within it, sorted by name. Families the controller holds but no task of
    which was attempted yet appear with their target only; `kind_of_family` places them."""
    cells: dict[tuple[str, str], list[Outcome]] = {}
    for o in outcomes:
        cells.setdefault((o.kind, o.family), []).append(o)
    for family in targets:
        kind = kind_of_family.get(family)
        if kind is not None and not any(f == family for _, f in cells):
            cells.setdefault((kind, family), [])
    rows: list[GroupRow] = []
    for kind in sorted({k for k, _ in cells}):
        families = sorted(f for k, f in cells if k == kind)
        members = [o for f in families for o in cells[(kind, f)]]
        kind_targets = [targets[f] for f in families if f in targets]
        rows.append(_row(kind, None, members, sum(kind_targets) / len(kind_targets) if kind_targets else None))
        rows.extend(_row(kind, f, cells[(kind, f)], targets.get(f)) for f in families)
    return rows


def _row(kind: str, family: str | None, members: list[Outcome], target: float | None) -> GroupRow:
    rollouts = sum(o.attempts for o in members)
    attempted = [o for o in members if o.attempts]
    return GroupRow(kind, family, len(members), rollouts,
                    sum(o.passed for o in members) / rollouts if rollouts else None,
                    sum(o.claimed for o in attempted) / len(attempted) if attempted else None,
                    round(target, 4) if target is not None else None)


def kind_rows(outcomes: Iterable[Outcome], targets: Mapping[str, float]) -> list[GroupRow]:
    """`group_rows` with each controlled family placed under its registered family's kind (the LLM proposer's
    'external' family makes Python function tasks)."""
    from spade.records import PYTHON_FUNCTION
    from spade.registry import FAMILIES

    kind_of_family = {f: FAMILIES.get(f).kind if f in FAMILIES else PYTHON_FUNCTION for f in targets}
    return group_rows(outcomes, targets, kind_of_family)


def row_cells(row: GroupRow) -> tuple[str, str, str, str, str, str]:
    """A row as printed: group, tasks, rollouts, pass rate, mean claimed difficulty, target difficulty."""
    def num(x: float | None) -> str:
        return "—" if x is None else f"{x:.2f}"

    return row.group, str(row.tasks), str(row.rollouts), num(row.pass_rate), num(row.claimed), num(row.target)


COLUMNS = ("kind / family", "tasks", "rollouts", "pass rate", "claimed difficulty", "target difficulty")
