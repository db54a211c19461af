"""Running whole programs on a task's tests: one sandbox program job per test, the test's stdin fed to it.

In: (task, program) pairs and the sandbox pool. Out: one `ExecResult` each (one `TestOutcome` per test, public then
hidden; CPU time and peak memory from the kernel, summed and maxed over the runs). Every job is submitted before any
result is read; a test that times out ends its program (its later tests are cancelled if not yet started and
recorded as not run), unless executor.run_all_tests_after_timeout. An answer's failure is its verdict.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import Any

from spade.config import ExecutorConfig
from spade.kinds.base import Scorer
from spade.kinds.program.judge import judge_run, match_mode
from spade.pycode import parse_untrusted
from spade.records import (
    OUTPUT_KEPT,
    ExecResult,
    ExecStatus,
    Task,
    TestOutcome,
    TestStatus,
)
from spade.sandbox.program import ProgramJob, ProgramRun, ProgramVerdict

MAX_STDIN_BYTES = 1 << 20
MIN_OUTPUT_CAP = 4096
MAX_OUTPUT_CAP = 1 << 20


def executor_config(pool: Scorer) -> ExecutorConfig:
    """The pool's executor settings (SandboxPool and the Ray pool carry them), else the defaults."""
    cfg = getattr(pool, "cfg", None)
    return cfg if isinstance(cfg, ExecutorConfig) else ExecutorConfig()


def stdin_of(args: Sequence[Any]) -> bytes:
    """A test's stdin: its only argument, text ('' for a malformed test, which validation rejects)."""
    return args[0].encode("utf-8", "surrogatepass") if len(args) == 1 and isinstance(args[0], str) else b""


def output_cap(expected: Any) -> int:
    """Bytes of stdout kept for a test: enough to hold the expected output twice over, and bounded."""
    size = len(expected.encode("utf-8", "surrogatepass")) if isinstance(expected, str) else 0
    return min(MAX_OUTPUT_CAP, max(MIN_OUTPUT_CAP, 2 * size + 1024))


def time_limit(task: Task, cfg: ExecutorConfig) -> float:
    """Per-test wall-clock limit: max(time_floor_s, time_factor × the reference's CPU seconds per test)."""
    measured = task.reference_cpu_s or 0.0
    return min(600.0, max(cfg.time_floor_s, cfg.time_factor * measured))


def execute_programs(pool: Scorer, items: Sequence[tuple[Task, str]],
                     on_done: Callable[[int], None] | None = None) -> list[ExecResult]:
    cfg = executor_config(pool)
    pending: list[list[Future[ProgramRun]] | ExecResult] = []
    for task, program in items:
        early = _unrunnable(task, program)
        if early is not None:
            pending.append(early)
            continue
        limit = time_limit(task, cfg)
        futures = [pool.submit_program(ProgramJob(program, stdin_of(case.args), time_limit_s=limit,
                                                  memory_bytes=cfg.memory_bytes,
                                                  max_output_bytes=output_cap(case.expected)))
                   for case in task.all_tests]
        if not cfg.run_all_tests_after_timeout:
            stop_after_timeout(futures)
        pending.append(futures)
    results = []
    for i, ((task, _), work) in enumerate(zip(items, pending)):
        result = work if isinstance(work, ExecResult) else _collect(task, work, cfg)
        results.append(result)
        if on_done is not None:
            on_done(i)
    return results


def stop_after_timeout(futures: list[Future[ProgramRun]]) -> None:
    """A test that times out ends its program: its later tests are cancelled before a worker takes them (a done
    callback runs in the worker's thread before it picks its next job); running ones finish."""
    def on_done(done: Future[ProgramRun], later: list[Future[ProgramRun]]) -> None:
        if not done.cancelled() and done.exception() is None and done.result().verdict is ProgramVerdict.TIMEOUT:
            for future in later:
                future.cancel()

    for k, future in enumerate(futures):
        future.add_done_callback(lambda f, later=futures[k + 1:]: on_done(f, later))


def _unrunnable(task: Task, program: str) -> ExecResult | None:
    """The verdict of an answer that cannot run at all (none given, or not Python), else None."""
    if not program.strip():
        return _not_run(task, ExecStatus.NO_ENTRY_POINT, "no program in the answer")
    try:
        parse_untrusted(program)
    except SyntaxError as exc:
        return _not_run(task, ExecStatus.SYNTAX_ERROR, f"SyntaxError: {str(exc)[:200]}")
    return None


def _not_run(task: Task, status: ExecStatus, why: str) -> ExecResult:
    n_public = len(task.test_cases)
    tests = tuple(TestOutcome(k, k >= n_public, TestStatus.NOT_RUN) for k in range(len(task.all_tests)))
    return ExecResult(status, tests, 0.0, 0, 0.0, load_error=why)


def _collect(task: Task, futures: list[Future[ProgramRun]], cfg: ExecutorConfig) -> ExecResult:
    mode, n_public = match_mode(task), len(task.test_cases)
    outcomes: list[TestOutcome] = []
    runs: list[ProgramRun] = []
    stopped = False
    for k, (case, future) in enumerate(zip(task.all_tests, futures)):
        if stopped:  # cancelled after the timeout, or already running then: not judged either way
            if not future.cancel():  # running or done (a future that started can no longer be cancelled)
                runs.append(future.result())
            outcomes.append(TestOutcome(k, k >= n_public, TestStatus.NOT_RUN))
            continue
        run = future.result()
        runs.append(run)
        outcome = judge_run(k, k >= n_public, run, case.expected, mode)
        outcomes.append(outcome)
        stopped = outcome.status is TestStatus.TIMEOUT and not cfg.run_all_tests_after_timeout
    events = tuple(dict.fromkeys(e for r in runs for e in r.events))
    shown = next((r for r, o in zip(runs, outcomes) if o.status is not TestStatus.PASSED), runs[0] if runs else None)
    return ExecResult(_overall(outcomes), tuple(outcomes), sum(r.cpu_time_s for r in runs),
                      max((r.peak_memory_kb for r in runs), default=0), sum(r.wall_time_s for r in runs),
                      output_bytes=sum(r.stdout_bytes + r.stderr_bytes for r in runs), events=events,
                      memory_limit_kb=cfg.memory_bytes // 1024,
                      stdout=_kept(shown.stdout) if shown else "", stderr=_kept(shown.stderr) if shown else "")


def _kept(data: bytes) -> str:
    """At most OUTPUT_KEPT bytes of a program's output as text, for the audit (lone surrogates replaced)."""
    return data[:OUTPUT_KEPT].decode("utf-8", "replace")


def _overall(outcomes: list[TestOutcome]) -> ExecStatus:
    statuses = [o.status for o in outcomes]
    if statuses and all(s is TestStatus.PASSED for s in statuses):
        return ExecStatus.PASSED
    if TestStatus.INTERNAL_ERROR in statuses:
        return ExecStatus.INTERNAL_ERROR
    if TestStatus.TIMEOUT in statuses and TestStatus.PASSED not in statuses[statuses.index(TestStatus.TIMEOUT):]:
        return ExecStatus.TIMEOUT
    return ExecStatus.FAILED
