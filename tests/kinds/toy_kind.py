"""A toy task kind, all in this one file: a question whose answer is an integer, judged on the host.

It exists to show what a new kind takes: this file and its registration, nothing in spade/ changed.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence

from spade.config import GenerationConfig
from spade.kinds import register
from spade.kinds.base import Prompt, Scorer, prompt_hash
from spade.records import ExecResult, ExecStatus, Task, TestOutcome, TestStatus
from spade.validate.outcome import Problem, ValidationOutcome

NAME = "toy_integer_answer"
_LAST_INT = re.compile(r"-?\d+")


class IntegerAnswer:
    name = NAME

    def prompt(self, task: Task, variant: int) -> Prompt:
        messages = ({"role": "user", "content": f"{task.description}\nAnswer with one integer."},)
        return Prompt(messages, "", 0, prompt_hash(messages, ""))

    def extract(self, task: Task, completion: str, *, prefilled: bool = True) -> str:
        found = _LAST_INT.findall(completion)
        return found[-1] if found else ""

    def screen(self, answer: str) -> tuple[str, ...]:
        return ()

    def execute(self, pool: Scorer, items: Sequence[tuple[Task, str]],
                on_done: Callable[[int], None] | None = None) -> list[ExecResult]:
        results = []
        for i, (task, answer) in enumerate(items):
            started = time.process_time()
            if not answer:
                tests = tuple(TestOutcome(k, k >= len(task.test_cases), TestStatus.NOT_RUN)
                              for k in range(len(task.all_tests)))
                status = ExecStatus.NO_ENTRY_POINT
            else:
                tests = tuple(TestOutcome(k, k >= len(task.test_cases),
                                          TestStatus.PASSED if int(answer) == case.expected else TestStatus.WRONG_ANSWER,
                                          got=None if int(answer) == case.expected else answer)
                              for k, case in enumerate(task.all_tests))
                status = ExecStatus.PASSED if all(t.status is TestStatus.PASSED for t in tests) else ExecStatus.FAILED
            results.append(ExecResult(status, tests, time.process_time() - started, 0, 0.0))
            if on_done is not None:
                on_done(i)
        return results

    def validate(self, tasks: Sequence[Task], pool: Scorer | None, cfg: GenerationConfig) -> list[ValidationOutcome]:
        outcomes = []
        for task in tasks:
            wrong = [c.expected for c in task.all_tests if str(c.expected) != (task.reference_solution or "")]
            if wrong:
                outcomes.append(ValidationOutcome.rejected(task.task_id, [Problem(
                    "expected_mismatch", f"reference answer {task.reference_solution!r} is not {wrong[0]!r}")]))
            else:
                outcomes.append(ValidationOutcome(True, task, task_id=task.task_id))
        return outcomes


register(IntegerAnswer())
