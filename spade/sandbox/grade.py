"""Supervisor-side grading: a RawRun plus the task's expected values gives an ExecResult.

in: a Task (public then hidden tests, in `task.all_tests` order) and the RawRun of its inputs.
out: an ExecResult with one TestOutcome per test and an overall ExecStatus. Exit codes and printed text
play no part; only the decoded return values, compared by compare.values_equal, can pass a test.
"""

from __future__ import annotations

from spade.errors import SandboxError
from spade.records import ExecResult, ExecStatus, Task, TestOutcome, TestStatus
from spade.sandbox.compare import values_equal
from spade.sandbox.job import OutcomeKind, RawOutcome, RawRun

GOT_CHARS = 200
_STATUS = {
    OutcomeKind.EXCEPTION: TestStatus.EXCEPTION, OutcomeKind.TIMEOUT: TestStatus.TIMEOUT,
    OutcomeKind.MEMORY: TestStatus.MEMORY, OutcomeKind.KILLED: TestStatus.KILLED,
    OutcomeKind.UNENCODABLE: TestStatus.UNENCODABLE, OutcomeKind.NOT_RUN: TestStatus.NOT_RUN,
    OutcomeKind.INTERNAL_ERROR: TestStatus.INTERNAL_ERROR,
}
_LOAD = {"syntax_error": ExecStatus.SYNTAX_ERROR, "no_entry_point": ExecStatus.NO_ENTRY_POINT}


def grade(task: Task, raw: RawRun) -> ExecResult:
    """Compare each returned value with its expected value, outside the candidate's process."""
    tests = task.all_tests
    if len(raw.outcomes) != len(tests):
        raise SandboxError(f"run has {len(raw.outcomes)} outcomes for task {task.task_id} with {len(tests)} tests")
    n_public = len(task.test_cases)
    outcomes = tuple(_outcome(i, i >= n_public, o, t.expected) for i, (o, t) in enumerate(zip(raw.outcomes, tests)))
    return ExecResult(
        status=_overall(raw, outcomes), tests=outcomes, cpu_time_s=raw.cpu_time_s,
        peak_memory_kb=raw.peak_memory_kb, wall_time_s=raw.wall_time_s, output_bytes=raw.output_bytes,
        load_error=raw.load_error, events=raw.events, memory_limit_kb=raw.memory_limit_kb,
    )


def _outcome(index: int, hidden: bool, raw: RawOutcome, expected: object) -> TestOutcome:
    if raw.kind is OutcomeKind.VALUE:
        if values_equal(raw.value, expected):
            return TestOutcome(index, hidden, TestStatus.PASSED)
        return TestOutcome(index, hidden, TestStatus.WRONG_ANSWER, got=_short(repr(raw.value)))
    error = raw.error
    if raw.kind is OutcomeKind.EXCEPTION and error:
        error = error.split(":", 1)[0]  # the exception type; its message is the candidate's text
    return TestOutcome(index, hidden, _STATUS[raw.kind], error=_short(error) if error else None)


def _overall(raw: RawRun, tests: tuple[TestOutcome, ...]) -> ExecStatus:
    if raw.load_status is not None:
        return _LOAD.get(raw.load_status, ExecStatus.LOAD_ERROR)
    if tests and all(t.status is TestStatus.INTERNAL_ERROR for t in tests):
        return ExecStatus.INTERNAL_ERROR
    if all(t.status is TestStatus.PASSED for t in tests):
        return ExecStatus.PASSED
    timed_out = [t.index for t in tests if t.status is TestStatus.TIMEOUT]
    if timed_out and not any(t.status is TestStatus.PASSED for t in tests[timed_out[0] + 1 :]):
        return ExecStatus.TIMEOUT
    return ExecStatus.FAILED


def _short(text: str) -> str:
    return text if len(text) <= GOT_CHARS else text[: GOT_CHARS - 1] + "…"
