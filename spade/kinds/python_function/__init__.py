"""The first task kind: write a Python function; judged on what it returns for each test's arguments.

Shown as a chat prompt with the signature and the public tests (prompt.py); the answer is the code in the
completion (extract.py); it runs in the sandbox pool, after a converted task's prompt preamble or under its own
check (program.py); screened for shell, network and credential use (spade.audit); validated by running the
reference, determinism and mutant-killing tests (spade.validate).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from spade.audit import screen_code
from spade.kinds import register
from spade.kinds.base import Prompt, Scorer
from spade.kinds.python_function.extract import extract_code
from spade.kinds.python_function.program import check_graded, execute_with_checks, program_job
from spade.kinds.python_function.prompt import build_prompt
from spade.records import PYTHON_FUNCTION, ExecResult, Task, TaskDraft

if TYPE_CHECKING:
    from spade.config import GenerationConfig
    from spade.validate.outcome import ValidationOutcome


class PythonFunction:
    name = PYTHON_FUNCTION

    def prompt(self, task: Task, variant: int) -> Prompt:
        return build_prompt(task, variant)

    def extract(self, task: Task, completion: str, *, prefilled: bool = True) -> str:
        return extract_code(completion, task.entry_point, prefilled=prefilled)

    def shown_tests(self, task: Task) -> list[dict[str, Any]]:
        from spade.kinds import public_pairs

        return public_pairs(task)  # the prompt shows them as examples

    def screen(self, answer: str) -> tuple[str, ...]:
        return screen_code(answer)

    def execute(self, pool: Scorer, items: Sequence[tuple[Task, str]],
                on_done: Callable[[int], None] | None = None) -> list[ExecResult]:
        checked = [i for i, (task, _) in enumerate(items) if check_graded(task)]
        if not checked:
            return pool.score_many([program_job(task, answer) for task, answer in items], on_done=on_done)
        return execute_with_checks(pool, items, checked, on_done)

    def validate(self, tasks: Sequence[Task], pool: Scorer | None, cfg: GenerationConfig) -> list[ValidationOutcome]:
        from spade.validate.dynamic import validate_tasks

        return validate_tasks(tasks, pool, cfg)  # type: ignore[arg-type]

    def validate_drafts(self, drafts: Sequence[TaskDraft], pool: Scorer,
                        cfg: GenerationConfig) -> list[ValidationOutcome]:
        from spade.validate.dynamic import validate_drafts

        return validate_drafts(drafts, pool, cfg)  # type: ignore[arg-type]


KIND = register(PythonFunction())
