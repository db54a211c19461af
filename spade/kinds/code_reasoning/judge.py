"""Judging code-reasoning answers; an answer's failure is its verdict, never an exception.

- deduction: the predicted value (answer.predicted_value) against the expected output, which validation took from
  running the program in the sandbox; compared by spade.sandbox.compare.values_equal on the host;
- abduction: the proposed arguments (answer.call_arguments) are run through the program in the sandbox, and the
  value it returns must equal the shown output: any input that produces it is right;
- induction: the function is run on the public and hidden pairs in the sandbox, as a Python function task.
In: (task, answer) pairs and the sandbox pool. Out: one ExecResult each, in order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from spade.kinds.base import Scorer
from spade.kinds.code_reasoning.answer import call_arguments, predicted_value
from spade.kinds.code_reasoning.prompt import ABDUCTION, INDUCTION, mode_of
from spade.kinds.python_function.program import program_job
from spade.records import PYTHON_FUNCTION, ExecResult, ExecStatus, Task, TestCase, TestOutcome, TestStatus
from spade.sandbox.compare import values_equal
from spade.sandbox.job import to_json_value
from spade.validate.types import are_json_args

GOT_CHARS = 200


def execute(pool: Scorer, items: Sequence[tuple[Task, str]],
            on_done: Callable[[int], None] | None = None) -> list[ExecResult]:
    results: list[ExecResult | None] = [None] * len(items)
    sandboxed: list[tuple[int, tuple[Task, str]]] = []
    for i, (task, answer) in enumerate(items):
        mode = mode_of(task)
        if mode == INDUCTION:
            sandboxed.append((i, program_job(replace(task, kind=PYTHON_FUNCTION), answer)))
        elif mode == ABDUCTION:
            job = abduction_job(task, answer)
            if isinstance(job, ExecResult):
                results[i] = job
            else:
                sandboxed.append((i, job))
        else:
            results[i] = judge_deduction(task, answer)
    for i, result in enumerate(results):
        if result is not None and on_done is not None:
            on_done(i)
    if sandboxed:
        indices = [i for i, _ in sandboxed]
        ran = pool.score_many([job for _, job in sandboxed],
                              on_done=None if on_done is None else (lambda k: on_done(indices[k])))
        for i, result in zip(indices, ran):
            results[i] = result
    return [r if r is not None else unanswered("no verdict") for r in results]


def judge_deduction(task: Task, answer: str) -> ExecResult:
    if not task.test_cases:
        return unanswered("the task has no query")
    ok, value = predicted_value(answer)
    if not ok:
        return unanswered("no Python literal in the answer")
    expected = task.test_cases[0].expected
    if values_equal(value, expected):
        return verdict(TestStatus.PASSED)
    return verdict(TestStatus.WRONG_ANSWER, got=_short(value))


def abduction_job(task: Task, answer: str) -> tuple[Task, str] | ExecResult:
    """The (task, program) the sandbox runs for an abduction answer: the task's program on the proposed arguments,
    expecting the shown output; or the verdict when the answer holds no usable arguments."""
    if not task.test_cases or not task.reference_solution:
        return unanswered("the task has no query")
    args = call_arguments(answer, task.entry_point)
    if args is None:
        return unanswered("no call with literal arguments in the answer")
    try:
        plain = [to_json_value(a) for a in args]
    except (ValueError, TypeError, RecursionError):
        plain = None
    if plain is None or not are_json_args(plain):
        return verdict(TestStatus.WRONG_ANSWER, got="arguments are not plain JSON values")
    probe = replace(task, kind=PYTHON_FUNCTION, test_cases=(TestCase(tuple(plain), task.test_cases[0].expected),),
                    hidden_test_cases=())
    return probe, task.reference_solution


def verdict(status: TestStatus, got: str | None = None) -> ExecResult:
    overall = ExecStatus.PASSED if status is TestStatus.PASSED else ExecStatus.FAILED
    return ExecResult(overall, (TestOutcome(0, False, status, got=got),), 0.0, 0, 0.0)


def unanswered(why: str) -> ExecResult:
    """A format failure: nothing in the answer could be judged."""
    return ExecResult(ExecStatus.NO_ENTRY_POINT, (TestOutcome(0, False, TestStatus.NOT_RUN),), 0.0, 0, 0.0,
                      load_error=why)


def _short(value: Any) -> str:
    try:
        text = repr(value)
    except (ValueError, RecursionError):  # an int too large for repr
        return "<value>"
    return text[:GOT_CHARS] + ("…" if len(text) > GOT_CHARS else "")
