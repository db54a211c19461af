"""Execute and judge SQL answers: each answer runs once on all of its task's databases in the sandbox (run.py);
the host compares each result set with the expected one (compare.py).

Verdicts: no answer -> no_entry_point; a statement refused before it runs (not a query, several statements,
too long) -> syntax_error (both format failures); per test: passed, wrong_answer (a different or too large
result), exception (an SQL error, or an operation the judge's authorizer refused), timeout, memory, not_run
(after the first timeout), internal_error (the judge gave no answer). Escape attempts the authorizer refused
(ATTACH, DETACH, load_extension, pragmas) are reported as the events `sql_denied` and `file_access`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from spade.kinds.base import Scorer
from spade.kinds.sql import run
from spade.kinds.sql.compare import same_result, show
from spade.kinds.sql.spec import result_problem
from spade.records import ExecResult, ExecStatus, Task, TestOutcome, TestStatus
from spade.sandbox.program import ProgramRun

_STATUS = {"error": TestStatus.EXCEPTION, "refused": TestStatus.EXCEPTION, "timeout": TestStatus.TIMEOUT,
           "memory": TestStatus.MEMORY, "too_large": TestStatus.WRONG_ANSWER, "not_run": TestStatus.NOT_RUN,
           "internal_error": TestStatus.INTERNAL_ERROR}
_ESCAPES = ("attach", "detach", "pragma", "function load_extension")


def execute(pool: Scorer, items: Sequence[tuple[Task, str]],
            on_done: Callable[[int], None] | None = None) -> list[ExecResult]:
    futures = [run.submit(pool, [answer], [c.args[0] for c in task.all_tests]) if answer.strip() else None
               for task, answer in items]
    results = []
    for i, ((task, _answer), future) in enumerate(zip(items, futures)):
        results.append(_not_run(task, ExecStatus.NO_ENTRY_POINT, "no SQL statement") if future is None
                       else judge(task, future.result()))
        if on_done is not None:
            on_done(i)
    return results


def judge(task: Task, ran: ProgramRun) -> ExecResult:
    """The verdict on one answer from its judge run."""
    (runs,), trouble = run.read_runs(ran, 1, len(task.all_tests))
    if runs.refused:
        return _not_run(task, ExecStatus.SYNTAX_ERROR, runs.refused, ran)
    ordered = bool(task.params.get("ordered", False))
    tests, denied = [], set()
    for k, (case, result) in enumerate(zip(task.all_tests, runs.results)):
        hidden = k >= len(task.test_cases)
        denied.update(result.denied)
        if result_problem(case.expected, "expected") is not None:  # a task that skipped validation
            tests.append(TestOutcome(k, hidden, TestStatus.INTERNAL_ERROR, error="expected is not a result set"))
        elif result.status == "ok" and result.result is not None:
            good = same_result(case.expected, result.result, ordered)
            tests.append(TestOutcome(k, hidden, TestStatus.PASSED if good else TestStatus.WRONG_ANSWER,
                                     got=None if good else show(result.result)))
        else:
            error = "result_too_large" if result.status == "too_large" else (result.error[:120] or result.status)
            tests.append(TestOutcome(k, hidden, _STATUS[result.status], error=error))
    statuses = {t.status for t in tests}
    if statuses == {TestStatus.PASSED}:
        status = ExecStatus.PASSED
    elif TestStatus.INTERNAL_ERROR in statuses:
        status = ExecStatus.INTERNAL_ERROR
    elif TestStatus.TIMEOUT in statuses:
        status = ExecStatus.TIMEOUT
    else:
        status = ExecStatus.FAILED
    events = ("sql_denied",) if denied else ()
    if denied.intersection(_ESCAPES):
        events += ("file_access",)
    return ExecResult(status, tuple(tests), ran.cpu_time_s, ran.peak_memory_kb, ran.wall_time_s,
                      load_error=trouble or None, events=events + ran.events,
                      memory_limit_kb=run.MEMORY_BYTES >> 10)


def _not_run(task: Task, status: ExecStatus, why: str, ran: ProgramRun | None = None) -> ExecResult:
    tests = tuple(TestOutcome(k, k >= len(task.test_cases), TestStatus.NOT_RUN) for k in range(len(task.all_tests)))
    if ran is None:
        return ExecResult(status, tests, 0.0, 0, 0.0, load_error=why)
    return ExecResult(status, tests, ran.cpu_time_s, ran.peak_memory_kb, ran.wall_time_s, load_error=why,
                      memory_limit_kb=run.MEMORY_BYTES >> 10)
