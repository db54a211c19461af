"""What one grading request may ask of the sandbox, and the pool as that request sees it.

in: a parsed task and the answers to grade, the service's caps (ServeConfig, ExecutorConfig). out: `check_work`
raises `TooMuchWork` (413) or `LimitTooHigh` (400) naming the field and the cap; `Throttled` is the pool narrowed
to `width` jobs at once for one request, whose pending jobs `cancel()` drops (the client went away, the service is
stopping). Jobs already running finish within their own time limits.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from concurrent.futures import CancelledError, Future, ThreadPoolExecutor
from typing import Any

from spade.config import ExecutorConfig, ServeConfig
from spade.records import Task


class TooMuchWork(Exception):
    status = 413


class LimitTooHigh(Exception):
    status = 400


def width_for(serve: ServeConfig, concurrency: int, answers: int) -> int:
    """Jobs one grading request runs at once: serve.grade_parallelism, or half the slots (at least one)."""
    width = serve.grade_parallelism or max(1, concurrency // 2)
    return max(1, min(width, concurrency, answers))


def check_work(tasks: Sequence[Task], serve: ServeConfig, executor: ExecutorConfig) -> None:
    """Refuse a request whose test runs pass serve.max_grade_runs, or whose task sets a per-test time limit past
    serve.max_run_timeout_s through params.reference_cpu_s (the cap /run_code has)."""
    runs = sum(max(1, len(t.all_tests)) for t in tasks)
    if runs > serve.max_grade_runs:
        raise TooMuchWork(f"the request asks for {runs} test runs (answers x tests), over serve.max_grade_runs = "
                          f"{serve.max_grade_runs}; send fewer answers or tests per request")
    seen: set[int] = set()
    for task in tasks:
        if id(task) in seen or task.reference_cpu_s is None:
            continue
        seen.add(id(task))
        limit = max(executor.time_floor_s, executor.time_factor * task.reference_cpu_s)
        if limit > serve.max_run_timeout_s:
            most = serve.max_run_timeout_s / executor.time_factor
            raise LimitTooHigh(
                f"field 'params.reference_cpu_s' = {task.reference_cpu_s:g} sets a per-test time limit of {limit:g} s "
                f"(executor.time_factor {executor.time_factor:g} x it), over serve.max_run_timeout_s = "
                f"{serve.max_run_timeout_s:g}; give at most {most:g} or leave it out")


class Throttled:
    """A sandbox pool (spade.kinds.base.Scorer) through which at most `width` jobs run at once."""

    def __init__(self, pool: Any, width: int) -> None:
        self.pool, self.cfg = pool, getattr(pool, "cfg", None)
        self._executor = ThreadPoolExecutor(max_workers=width, thread_name_prefix="spade-request")

    def submit_program(self, job: Any) -> Future[Any]:
        return self._executor.submit(self.pool.run_program, job)

    def run_program(self, job: Any) -> Any:
        return self.submit_program(job).result()

    def score_many(self, items: Sequence[tuple[Task, str]], time_limits: Sequence[Sequence[float] | None] | None = None,
                   on_done: Callable[[int], None] | None = None) -> list[Any]:
        limits = list(time_limits) if time_limits is not None else [None] * len(items)
        futures = []
        for i, ((task, code), lim) in enumerate(zip(items, limits, strict=True)):
            future = self._executor.submit(self._score_one, task, code, lim)
            if on_done is not None:
                future.add_done_callback(lambda _f, i=i: on_done(i))
            futures.append(future)
        return [f.result() for f in futures]

    def _score_one(self, task: Task, code: str, limits: Sequence[float] | None) -> Any:
        return self.pool.score_many([(task, code)], [limits])[0]

    def cancel(self) -> None:
        """Drop the jobs not yet started: whoever waits on them gets concurrent.futures.CancelledError."""
        self._executor.shutdown(wait=False, cancel_futures=True)


async def until_gone(request: Any, throttle: Throttled, work: Callable[[], Any]) -> Any:
    """`work()` in a thread; if the client disconnects first, the throttle's pending jobs are dropped, the jobs
    already running are waited for (their slots stay held until then) and the answer is None."""
    running = asyncio.ensure_future(asyncio.to_thread(_unless_cancelled, work))
    gone = asyncio.ensure_future(_disconnected(request))
    try:
        await asyncio.wait({running, gone}, return_when=asyncio.FIRST_COMPLETED)
        if not running.done():
            throttle.cancel()
            await running
            return None
        return running.result()
    finally:
        gone.cancel()


async def unless_gone_while_queued(request: Any, work: Any, admitted: asyncio.Event) -> Any:
    """Await `work` (a coroutine that sets `admitted` once it holds its slot); if the client disconnects while it
    still waits in the queue, it gives its place up and the answer is None. Once admitted, it runs to its end
    (its job cannot be recalled from the worker, and its slot stays held until the worker is free)."""
    running = asyncio.ensure_future(work)
    gone = asyncio.ensure_future(_disconnected(request))
    try:
        await asyncio.wait({running, gone}, return_when=asyncio.FIRST_COMPLETED)
        if not running.done() and not admitted.is_set():
            running.cancel()
            return None
        return await running
    finally:
        gone.cancel()
        if not running.done():
            running.cancel()


def _unless_cancelled(work: Callable[[], Any]) -> Any:
    try:
        return work()
    except CancelledError:  # the throttle dropped a job this work waited for
        return None


async def _disconnected(request: Any) -> None:
    """Returns once the client has gone (the body was read already, so the next message is the disconnect)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass
