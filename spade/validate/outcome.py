"""What validation says about one task: accepted with the finished Task, or rejected with reason codes.

Rejection is data: `reasons` are short machine-readable codes (reference_raises, weak_tests, arity_mismatch…),
`details` the matching human sentences, `notes` remarks that did not reject (e.g. static checks only).
"""

from __future__ import annotations

from dataclasses import dataclass

from spade.records import Task


@dataclass(frozen=True, slots=True)
class Problem:
    """One reason a task fails validation: a code and a sentence naming the field and value."""

    code: str
    detail: str


@dataclass(frozen=True, slots=True)
class ValidationOutcome:
    accepted: bool
    task: Task | None
    reasons: tuple[str, ...] = ()
    details: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    task_id: str = ""
    kill_ratio: float | None = None
    """Share of the reference's runnable mutants the tests caught (None when no mutant check ran)."""

    @classmethod
    def rejected(cls, task_id: str, problems: list[Problem], kill_ratio: float | None = None) -> ValidationOutcome:
        return cls(False, None, tuple(p.code for p in problems), tuple(p.detail for p in problems),
                   task_id=task_id, kill_ratio=kill_ratio)
