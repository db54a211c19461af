"""The math kind: a procedurally generated problem whose answer is a number, a set of values, a polynomial or an
expression, judged by symbolic equivalence with SymPy inside the sandbox.

A task's `signature` is its answer form (grammar.FORMS: "number", "numbers in x", "polynomial in x, y", ...), its one
test has no arguments and expects the canonical answer text. The answer is the line after the prefilled "Answer: "
when it is well formed, else the completion's last \\boxed{} or "Answer:" line (extract.py), parsed by a restricted
grammar into SymPy objects and compared inside the sandbox (judge.py, run.py); nothing the policy writes is
sympified or evaluated, and the host reads only bounded verdicts. Families: families/. SymPy is imported only
inside the sandbox.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from spade.kinds import register
from spade.kinds.base import Prompt, Scorer
from spade.kinds.math import families as _families  # noqa: F401  (registers the math families)
from spade.kinds.math.extract import extract_answer
from spade.kinds.math.grammar import parse_form
from spade.kinds.math.prompt import build_prompt
from spade.kinds.math.run import Request, Verdict, run_requests
from spade.kinds.math.validate import MATH, validate_drafts, validate_tasks
from spade.records import ExecResult, ExecStatus, Task, TaskDraft, TestOutcome, TestStatus

if TYPE_CHECKING:
    from spade.config import GenerationConfig
    from spade.validate.outcome import ValidationOutcome

_TEST_STATUS = {
    "ok": TestStatus.PASSED, "wrong": TestStatus.WRONG_ANSWER, "form": TestStatus.WRONG_ANSWER,
    "error": TestStatus.WRONG_ANSWER, "refused": TestStatus.NOT_RUN, "timeout": TestStatus.TIMEOUT,
    "memory": TestStatus.MEMORY, "killed": TestStatus.KILLED, "internal_error": TestStatus.INTERNAL_ERROR,
}


class Math:
    name = MATH

    def prompt(self, task: Task, variant: int) -> Prompt:
        return build_prompt(task, variant)

    def extract(self, task: Task, completion: str, *, prefilled: bool = True) -> str:
        try:
            form = parse_form(task.signature)
        except ValueError:
            form = None  # a task file's bad form is refused by validation; here the text is taken as written
        return extract_answer(completion, prefilled=prefilled, form=form)

    def screen(self, answer: str) -> tuple[str, ...]:
        return ()  # an answer is never run as code: the grammar admits no names but variables and sqrt

    def execute(self, pool: Scorer, items: Sequence[tuple[Task, str]],
                on_done: Callable[[int], None] | None = None) -> list[ExecResult]:
        requests, owners = [], []
        for i, (task, answer) in enumerate(items):
            if not answer.strip():
                continue
            for case in task.all_tests:
                requests.append(Request("judge", task.signature, answer, str(case.expected)))
                owners.append(i)
        verdicts = run_requests(pool, requests)
        per_item: list[list[Verdict]] = [[] for _ in items]
        for i, verdict in zip(owners, verdicts):
            per_item[i].append(verdict)
        results = []
        for i, (task, _) in enumerate(items):
            results.append(_result(task, per_item[i]))
            if on_done is not None:
                on_done(i)
        return results

    def validate(self, tasks: Sequence[Task], pool: Scorer | None, cfg: GenerationConfig) -> list[ValidationOutcome]:
        return validate_tasks(tasks, pool)

    def validate_drafts(self, drafts: Sequence[TaskDraft], pool: Scorer,
                        cfg: GenerationConfig) -> list[ValidationOutcome]:
        return validate_drafts(drafts, pool)


def _result(task: Task, verdicts: list[Verdict]) -> ExecResult:
    n_shown = len(task.test_cases)
    if not verdicts:  # no answer in the completion: a format failure
        tests = tuple(TestOutcome(k, k >= n_shown, TestStatus.NOT_RUN) for k in range(len(task.all_tests)))
        return ExecResult(ExecStatus.NO_ENTRY_POINT, tests, 0.0, 0, 0.0, load_error="no answer found")
    tests = tuple(TestOutcome(k, k >= n_shown, _TEST_STATUS.get(v.status, TestStatus.INTERNAL_ERROR),
                              got=v.shown or None if v.status != "ok" else None,
                              error=v.detail or None if v.status != "ok" else None)
                  for k, v in enumerate(verdicts))
    statuses = {t.status for t in tests}
    if statuses == {TestStatus.PASSED}:
        status = ExecStatus.PASSED
    elif TestStatus.NOT_RUN in statuses:
        status = ExecStatus.SYNTAX_ERROR  # refused by the grammar: a format failure
    elif TestStatus.INTERNAL_ERROR in statuses:
        status = ExecStatus.INTERNAL_ERROR
    elif TestStatus.TIMEOUT in statuses:
        status = ExecStatus.TIMEOUT
    else:
        status = ExecStatus.FAILED
    cpu = sum(v.cpu_s for v in verdicts)
    load_error = next((v.detail for v in verdicts if v.status == "refused"), None)
    # memory_limit_kb stays 0: the judge's memory is not the answer's, so no memory penalty applies.
    return ExecResult(status, tests, cpu, max(v.peak_memory_kb for v in verdicts), cpu, load_error=load_error)


KIND = register(Math())
