"""Execute structured answers: each (task, document) is one sandbox job that parses the document and runs every
test's check; the verdict per test is the check's value compared, on the host, with the expected one.

In: (task, answer) pairs and the pool. Out: one ExecResult each, in order. A document the judge refuses (not
JSON/YAML, a bomb, too deep, duplicate keys) is a syntax error; an empty or oversized answer is refused unrun;
a run that times out, runs out of memory, dies or answers malformed is that verdict, never an exception.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from spade.kinds.structured.job import JUDGE_MEMORY_BYTES, MAX_DOCUMENT_CHARS, BadReply, Reply, judge_job, read_reply
from spade.records import ExecResult, ExecStatus, Task, TestOutcome, TestStatus
from spade.sandbox.program import ProgramRun, ProgramVerdict

if TYPE_CHECKING:
    from spade.kinds.base import Scorer

_RUN_STATUS = {ProgramVerdict.TIMEOUT: TestStatus.TIMEOUT, ProgramVerdict.MEMORY: TestStatus.MEMORY,
               ProgramVerdict.KILLED: TestStatus.KILLED, ProgramVerdict.INTERNAL_ERROR: TestStatus.INTERNAL_ERROR}


def checks_of(task: Task) -> list[Any]:
    """Each test's check (its only argument), public tests first."""
    return [case.args[0] if len(case.args) == 1 else None for case in task.all_tests]


def document_format(task: Task) -> str:
    return task.entry_point


def execute(pool: Scorer, items: Sequence[tuple[Task, str]],
            on_done: Callable[[int], None] | None = None) -> list[ExecResult]:
    pending: list[Future[ProgramRun] | ExecResult] = []
    for task, answer in items:
        refusal = _refusal(answer)
        if refusal is not None:
            pending.append(unrun(task, ExecStatus.SYNTAX_ERROR, refusal))
        else:
            pending.append(pool.submit_program(judge_job(document_format(task), answer, checks_of(task))))
    results = []
    for i, ((task, _), item) in enumerate(zip(items, pending)):
        results.append(item if isinstance(item, ExecResult) else judged(task, item.result()))
        if on_done is not None:
            on_done(i)
    return results


def _refusal(answer: str) -> str | None:
    if not answer.strip():
        return "no document in the answer"
    if len(answer) > MAX_DOCUMENT_CHARS:
        return f"the document has {len(answer)} characters; at most {MAX_DOCUMENT_CHARS} are judged"
    return None


def judged(task: Task, run: ProgramRun) -> ExecResult:
    """The verdict of one judge run on `task`'s tests."""
    n_public, tests = len(task.test_cases), task.all_tests
    measures = {"cpu_time_s": run.cpu_time_s, "peak_memory_kb": run.peak_memory_kb, "wall_time_s": run.wall_time_s,
                "memory_limit_kb": 0 if run.verdict is ProgramVerdict.INTERNAL_ERROR else JUDGE_MEMORY_BYTES >> 10}
    if not run.ok:
        status = _RUN_STATUS.get(run.verdict, TestStatus.INTERNAL_ERROR)
        why = run.error or (run.stderr.decode("utf-8", "replace").strip().splitlines() or [run.verdict.value])[-1]
        overall = {TestStatus.TIMEOUT: ExecStatus.TIMEOUT, TestStatus.INTERNAL_ERROR: ExecStatus.INTERNAL_ERROR}
        return ExecResult(overall.get(status, ExecStatus.FAILED),
                          tuple(TestOutcome(k, k >= n_public, status) for k in range(len(tests))),
                          load_error=f"the judge did not finish: {why[:200]}", **measures)
    try:
        reply = read_reply(run, len(tests))
    except BadReply as exc:
        return ExecResult(ExecStatus.INTERNAL_ERROR,
                          tuple(TestOutcome(k, k >= n_public, TestStatus.INTERNAL_ERROR) for k in range(len(tests))),
                          load_error=str(exc), **measures)
    if reply.error is not None:
        return ExecResult(ExecStatus.SYNTAX_ERROR,
                          tuple(TestOutcome(k, k >= n_public, TestStatus.NOT_RUN) for k in range(len(tests))),
                          load_error=reply.error, **measures)
    outcomes = tuple(_outcome(k, k >= n_public, case.expected, result)
                     for k, (case, result) in enumerate(zip(tests, reply.results)))
    passed = all(o.status is TestStatus.PASSED for o in outcomes)
    return ExecResult(ExecStatus.PASSED if passed else ExecStatus.FAILED, outcomes, **measures)


def _outcome(index: int, hidden: bool, expected: Any, result: tuple[str, Any]) -> TestOutcome:
    from spade.sandbox.compare import values_equal

    kind, value = result
    if kind == "value" and values_equal(value, expected):
        return TestOutcome(index, hidden, TestStatus.PASSED)
    return TestOutcome(index, hidden, TestStatus.WRONG_ANSWER, got=(value if kind == "failed" else repr(value))[:200])


def unrun(task: Task, status: ExecStatus, why: str) -> ExecResult:
    """A verdict given without running: every test not run."""
    n_public = len(task.test_cases)
    return ExecResult(status, tuple(TestOutcome(k, k >= n_public, TestStatus.NOT_RUN)
                                    for k in range(len(task.all_tests))), 0.0, 0, 0.0, load_error=why)


def reply_of(run: ProgramRun, n_checks: int) -> Reply | str:
    """The judge's reply, or why there is none (for validation, where a failed run is a rejection)."""
    if not run.ok:
        return f"the judge did not finish ({run.verdict.value}): {(run.error or run.stderr.decode('utf-8', 'replace'))[-200:]}"
    try:
        return read_reply(run, n_checks)
    except BadReply as exc:
        return str(exc)
