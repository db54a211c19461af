"""Program tasks (kind 'program'): write a whole Python program that reads stdin and writes stdout, competitive-
programming style; judged on its output for each test's stdin.

A test is `TestCase(args=(stdin,), expected=stdout)`; the expected output is the reference program's, produced by
running it in the sandbox (validate.py). `params.output_match` says how outputs compare: 'tokens' (default:
whitespace-separated tokens equal) or 'exact' (same text apart from trailing newlines). Shown as a statement with
sample input/output (prompt.py); the answer is the program in the completion (extract.py); each test runs as its
own sandbox program job under the same isolation and limits as function candidates (run.py), judged outside the
sandbox (judge.py); screened like Python code (spade.audit). Families: families/ (program_*).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from spade.audit import screen_code
from spade.kinds import register
from spade.kinds.base import Prompt, Scorer
from spade.kinds.program import families  # noqa: F401  (registers the program_* families)
from spade.kinds.program.extract import extract_program
from spade.kinds.program.families.base import PROGRAM
from spade.kinds.program.prompt import build_prompt, task_starter
from spade.kinds.program.run import execute_programs
from spade.records import ExecResult, Task, TaskDraft

if TYPE_CHECKING:
    from spade.config import GenerationConfig
    from spade.validate.outcome import ValidationOutcome


class ProgramKind:
    name = PROGRAM

    def prompt(self, task: Task, variant: int) -> Prompt:
        return build_prompt(task, variant)

    def extract(self, task: Task, completion: str, *, prefilled: bool = True) -> str:
        return extract_program(completion, prefilled=prefilled, starter=task_starter(task))

    def shown_tests(self, task: Task) -> list[dict[str, Any]]:
        from spade.kinds import public_pairs

        return public_pairs(task)  # the prompt shows them as examples

    def screen(self, answer: str) -> tuple[str, ...]:
        return screen_code(answer)

    def execute(self, pool: Scorer, items: Sequence[tuple[Task, str]],
                on_done: Callable[[int], None] | None = None) -> list[ExecResult]:
        return execute_programs(pool, items, on_done)

    def validate(self, tasks: Sequence[Task], pool: Scorer | None, cfg: GenerationConfig) -> list[ValidationOutcome]:
        from spade.kinds.program.validate import validate_program_tasks

        return validate_program_tasks(tasks, pool, cfg)

    def validate_drafts(self, drafts: Sequence[TaskDraft], pool: Scorer,
                        cfg: GenerationConfig) -> list[ValidationOutcome]:
        from spade.kinds.program.validate import validate_program_drafts

        return validate_program_drafts(drafts, pool, cfg)


KIND = register(ProgramKind())
