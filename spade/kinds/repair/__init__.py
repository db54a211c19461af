"""The repair kind: fix a buggy Python function; judged exactly as a Python function task, on all its tests.

A repair task is a validated Python function task (its description, signature, entry point, tests and reference
unchanged) whose `params` carry the buggy code (`buggy_code`, with `bugs`, `bug_kinds`, `bug_lines`) and the
public test it fails with what it did (`failing_test`). Shown with the buggy code and that test (prompt.py); the
answer is the code in the completion (the Python function extractor); it runs as a Python function answer does;
validated by running the reference and the bug (validation.py). Families (families.py) inject one to three of
SPADE's own mutations (bugs.py) into a Python function family's reference.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from spade.kinds import register
from spade.kinds.base import Prompt, Scorer
from spade.kinds.python_function import KIND as PYTHON
from spade.kinds.repair import families  # noqa: F401  (registers the repair families)
from spade.kinds.repair.name import REPAIR
from spade.kinds.repair.prompt import build_prompt
from spade.records import ExecResult, Task, TaskDraft

if TYPE_CHECKING:
    from spade.config import GenerationConfig
    from spade.validate.outcome import ValidationOutcome


class Repair:
    name = REPAIR

    def prompt(self, task: Task, variant: int) -> Prompt:
        return build_prompt(task, variant)

    def extract(self, task: Task, completion: str, *, prefilled: bool = True) -> str:
        return PYTHON.extract(task, completion, prefilled=prefilled)

    def shown_tests(self, task: Task) -> list[dict[str, Any]]:
        from spade.kinds import public_pairs

        return public_pairs(task)  # the prompt shows them as examples

    def screen(self, answer: str) -> tuple[str, ...]:
        return PYTHON.screen(answer)

    def execute(self, pool: Scorer, items: Sequence[tuple[Task, str]],
                on_done: Callable[[int], None] | None = None) -> list[ExecResult]:
        return PYTHON.execute(pool, items, on_done)

    def validate(self, tasks: Sequence[Task], pool: Scorer | None, cfg: GenerationConfig) -> list[ValidationOutcome]:
        from spade.kinds.repair.validation import validate_tasks

        return validate_tasks(tasks, pool, cfg)

    def validate_drafts(self, drafts: Sequence[TaskDraft], pool: Scorer,
                        cfg: GenerationConfig) -> list[ValidationOutcome]:
        from spade.kinds.repair.validation import validate_drafts

        return validate_drafts(drafts, pool, cfg)


KIND = register(Repair())
