"""Task kinds as plug-ins: a Python function task is the first; each kind is one module or folder here ending with
`register(...)`. In: a Task (its `kind` names one). Out: the kind that shows, extracts, executes, judges and
validates it. An unknown kind is refused with the known ones listed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from spade.kinds.base import Prompt, Scorer, TaskKind, prompt_hash
from spade.records import PYTHON_FUNCTION, Task, TaskDraft
from spade.registry import KINDS

if TYPE_CHECKING:
    from spade.config import GenerationConfig
    from spade.validate.outcome import ValidationOutcome


def register(kind: TaskKind) -> TaskKind:
    """Add a kind under its name and return it, so a kind's module can end with `register(...)`."""
    return KINDS.register(kind.name, kind)


def kind_of(task: Task) -> TaskKind:
    return KINDS.get(task.kind)


def shown_tests(task: Task) -> list[dict[str, Any]]:
    """The public tests as a trainer may see them (/v1/env/draw, `Drawn.shown`): what the task's prompt shows, as
    the kind decides with an optional `shown_tests(task)`. A kind without one shows the inputs only: an expected
    value is an answer unless the kind says its prompt shows it (a Python function's examples do; a math or SQL
    task's expected result, a deduction's output, never)."""
    decide = getattr(kind_of(task), "shown_tests", None)
    if decide is not None:
        return list(decide(task))
    return [{"input": list(t.args)} for t in task.test_cases]


def public_pairs(task: Task) -> list[dict[str, Any]]:
    """Every public test with its expected value: for a kind whose prompt shows them as examples."""
    return [{"input": list(t.args), "expected": t.expected} for t in task.test_cases]


def validate_tasks(tasks: Sequence[Task], pool: Scorer | None, cfg: GenerationConfig) -> list[ValidationOutcome]:
    """Each task validated by its own kind's validator, results in the order of `tasks`."""
    outcomes: list[ValidationOutcome | None] = [None] * len(tasks)
    for name, indices in group_by_kind(tasks).items():
        for i, outcome in zip(indices, KINDS.get(name).validate([tasks[i] for i in indices], pool, cfg)):
            outcomes[i] = outcome
    return [o for o in outcomes if o is not None]


def validate_drafts(drafts: Sequence[TaskDraft], pool: Scorer, cfg: GenerationConfig) -> list[ValidationOutcome]:
    """Each draft made a Task and validated by its own kind (expected values from running the reference), in order."""
    outcomes: list[ValidationOutcome | None] = [None] * len(drafts)
    for name, indices in group_by_kind(drafts).items():
        for i, outcome in zip(indices, KINDS.get(name).validate_drafts([drafts[i] for i in indices], pool, cfg)):
            outcomes[i] = outcome
    return [o for o in outcomes if o is not None]


def group_by_kind(tasks: Sequence[Task] | Sequence[TaskDraft]) -> dict[str, list[int]]:
    """Indices of `tasks` (or drafts) per kind, in first-seen order."""
    groups: dict[str, list[int]] = {}
    for i, task in enumerate(tasks):
        groups.setdefault(task.kind, []).append(i)
    return groups


__all__ = ["KINDS", "PYTHON_FUNCTION", "Prompt", "Scorer", "TaskKind", "group_by_kind", "kind_of", "prompt_hash",
           "public_pairs", "register", "shown_tests", "validate_drafts", "validate_tasks"]
