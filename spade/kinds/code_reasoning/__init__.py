"""Code-reasoning tasks (kind 'code_reasoning'): three modes over a small pure Python function f and its inputs.

- deduction: program + input -> predict the output (judged by comparing the value, parsed safely, to f(input));
- abduction: program + output -> give an input x with f(x) == output (any such input is right; it is run through
  f in the sandbox);
- induction: input/output pairs + a short description -> write f (judged on hidden pairs in the sandbox).
`params.mode` names the mode. Expected outputs always come from executing the program in the sandbox
(validate.py), never from a model. Shown by prompt.py, read by answer.py, judged by judge.py; cold-start families
derived from Python function families in families.py (cr_deduction, cr_abduction, cr_induction); the policy writes
more as proposer (spade.selfplay).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from spade.audit import screen_code
from spade.kinds import register
from spade.kinds.base import Prompt, Scorer
from spade.kinds.code_reasoning import (
    families,  # noqa: F401  (registers the cr_* families)
    proposer_role,  # noqa: F401  (registers the proposer role's prompts)
)
from spade.kinds.code_reasoning.answer import first_line
from spade.kinds.code_reasoning.judge import execute
from spade.kinds.code_reasoning.prompt import ABDUCTION, INDUCTION, build_prompt, mode_of
from spade.kinds.python_function.extract import extract_code
from spade.records import ExecResult, Task, TaskDraft

if TYPE_CHECKING:
    from spade.config import GenerationConfig
    from spade.validate.outcome import ValidationOutcome

CODE_REASONING = "code_reasoning"


class CodeReasoning:
    name = CODE_REASONING

    def prompt(self, task: Task, variant: int) -> Prompt:
        return build_prompt(task, variant)

    def shown_tests(self, task: Task) -> list[dict[str, Any]]:
        """What the mode's prompt shows: a deduction's input (its output is the answer), an abduction's output
        (its input is an answer), an induction's public pairs."""
        mode = mode_of(task)
        if mode == INDUCTION:
            return [{"input": list(t.args), "expected": t.expected} for t in task.test_cases]
        if mode == ABDUCTION:
            return [{"expected": t.expected} for t in task.test_cases[:1]]
        return [{"input": list(t.args)} for t in task.test_cases[:1]]

    def extract(self, task: Task, completion: str, *, prefilled: bool = True) -> str:
        if mode_of(task) == INDUCTION:
            return extract_code(completion, task.entry_point, prefilled=prefilled)
        if not prefilled:  # a server that could not prefill: the answer is on the assertion line it wrote
            line = next((ln.strip() for ln in completion[:4000].splitlines() if ln.strip().startswith("assert ")), "")
            if mode_of(task) == ABDUCTION:
                return first_line(line.removeprefix("assert ").strip())
            return first_line(line.partition("==")[2])
        return first_line(completion)

    def screen(self, answer: str) -> tuple[str, ...]:
        return screen_code(answer)

    def execute(self, pool: Scorer, items: Sequence[tuple[Task, str]],
                on_done: Callable[[int], None] | None = None) -> list[ExecResult]:
        return execute(pool, items, on_done)

    def validate(self, tasks: Sequence[Task], pool: Scorer | None, cfg: GenerationConfig) -> list[ValidationOutcome]:
        from spade.kinds.code_reasoning.validate import validate_tasks

        return validate_tasks(tasks, pool, cfg)

    def validate_drafts(self, drafts: Sequence[TaskDraft], pool: Scorer,
                        cfg: GenerationConfig) -> list[ValidationOutcome]:
        from spade.kinds.code_reasoning.validate import validate_drafts

        return validate_drafts(drafts, pool, cfg)


KIND = register(CodeReasoning())
