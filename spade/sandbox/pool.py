"""SandboxPool: warm workers behind one submit/run/score interface, shared by validate, sample and evaluate.

in: an ExecutorConfig; Jobs, or (Task, code) pairs. out: RawRun (ungraded) or ExecResult (graded).
A worker whose zygote died is replaced and its job retried once; a second failure raises SandboxError.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import queue
import threading
import warnings
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

from spade.config import ExecutorConfig
from spade.errors import SandboxError
from spade.records import ExecResult, Task
from spade.sandbox.grade import grade
from spade.sandbox.inside import codec
from spade.sandbox.job import Job, OutcomeKind, RawOutcome, RawRun
from spade.sandbox.layers import plan_for
from spade.sandbox.worker import Worker, WorkerDied

log = logging.getLogger("spade.sandbox")
UID_BASE = 62000
UID_BLOCK = 64
_uid_blocks = itertools.count()


class UnsafeSandboxWarning(UserWarning):
    """Candidate code is running without isolation (executor.isolation = 'none')."""


class SandboxPool:
    def __init__(self, cfg: ExecutorConfig) -> None:
        if cfg.mode == "subprocess":
            raise SandboxError(
                "executor.mode = 'subprocess' is the write-up's unsafe prototype, kept only for bench/sandbox.py; "
                "set executor.mode to 'sandbox'"
            )
        if cfg.mode == "docker":
            log.warning("executor.mode = 'docker': the Docker engine is not available on this host; using SPADE's "
                        "fork-server sandbox with isolation = %r instead", cfg.isolation)
        self.cfg = cfg
        self.plan = plan_for(cfg)
        # A fresh uid block per pool, so two pools on one host never share a uid (and its RLIMIT_NPROC count).
        block = (os.getpid() * 7 + next(_uid_blocks)) % 4000
        self._uid0 = UID_BASE + block * UID_BLOCK
        n = cfg.worker_count
        self._tmpfs = cfg.tmpfs_size_mb << 20
        self._memory_bytes = cfg.memory_bytes
        self._free: queue.Queue[tuple[int, Worker]] = queue.Queue()
        self._all: dict[int, Worker] = {}
        self._lock = threading.Lock()
        self._closed = False
        # Workers are spawned from this one long-lived thread (see Worker), then awaited anywhere.
        self._spawner = ThreadPoolExecutor(1, thread_name_prefix="spade-sandbox-spawn")
        workers = [self._spawner.submit(self._spawn, slot).result() for slot in range(n)]
        for worker in workers:
            worker.wait_ready()
        for slot, worker in enumerate(workers):
            self._all[slot] = worker
            self._free.put((slot, worker))
        self._executor = ThreadPoolExecutor(n, thread_name_prefix="spade-sandbox")

    def _spawn(self, slot: int) -> Worker:
        return Worker(self.plan, self._uid0 + slot, self._tmpfs)

    def _start(self, slot: int) -> Worker:
        worker = self._spawner.submit(self._spawn, slot).result()
        worker.wait_ready()
        return worker

    def __enter__(self) -> SandboxPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._executor.shutdown(wait=True)
        self._spawner.shutdown(wait=True)
        for worker in self._all.values():
            worker.close()

    def worker_pids(self) -> list[int]:
        """Host pids of the workers (bwrap, or the bare zygote under isolation 'none')."""
        return [w.pid for w in self._all.values()]

    # -- running jobs -------------------------------------------------------------------------------------------
    def submit(self, job: Job) -> Future[RawRun]:
        if self._closed:
            raise SandboxError("this SandboxPool is closed; create a new one")
        return self._executor.submit(self.run, job)

    async def arun(self, job: Job) -> RawRun:
        return await asyncio.wrap_future(self.submit(job))

    def run(self, job: Job) -> RawRun:
        """Run one job on a free worker; replace a dead worker and retry once."""
        if self.cfg.isolation == "none":
            warnings.warn("executor.isolation = 'none': candidate code runs without isolation (debugging only)",
                          UnsafeSandboxWarning, stacklevel=2)
        slot, worker = self._free.get()
        try:
            for attempt in (1, 2):
                try:
                    return _raw_run(worker.run(job), len(job.inputs))
                except WorkerDied as exc:
                    log.warning("sandbox worker %d died (%s); replacing it (attempt %d)", slot, exc, attempt)
                    worker.close()
                    worker = self._start(slot)
                    with self._lock:
                        self._all[slot] = worker
                    if attempt == 2:
                        raise SandboxError(f"a sandbox worker died twice running one job: {exc}") from None
            raise AssertionError("unreachable")
        finally:
            self._free.put((slot, worker))

    # -- scoring tasks -------------------------------------------------------------------------------------------
    def job_for(self, task: Task, code: str, time_limits: Sequence[float] | None = None) -> Job:
        tests = task.all_tests
        if time_limits is None:
            # The reference's CPU time per test (recorded by validation) sets the limit when it is known.
            ref = task.params.get("reference_cpu_s")
            per_test = None if ref is None else (float(ref),) * len(tests)
            time_limits = time_limits_for(self.cfg, len(tests), per_test)
        limits = tuple(time_limits)
        if len(limits) != len(tests):
            raise SandboxError(
                f"time_limits has {len(limits)} entries but task {task.task_id} has {len(tests)} tests; "
                "give one limit per test (public then hidden) or None"
            )
        return Job(code=code, entry_point=task.entry_point, inputs=tuple(tuple(t.args) for t in tests),
                   time_limits=limits, memory_bytes=self._memory_bytes, total_timeout=self.cfg.timeout,
                   max_output_bytes=self.cfg.max_output_bytes,
                   run_all_tests_after_timeout=self.cfg.run_all_tests_after_timeout)

    def score(self, task: Task, code: str, time_limits: Sequence[float] | None = None) -> ExecResult:
        return grade(task, self.run(self.job_for(task, code, time_limits)))

    async def ascore(self, task: Task, code: str, time_limits: Sequence[float] | None = None) -> ExecResult:
        raw = await self.arun(self.job_for(task, code, time_limits))
        return grade(task, raw)

    def score_many(self, items: Sequence[tuple[Task, str]], time_limits: Sequence[Sequence[float] | None] | None = None,
                   on_done: Callable[[int], None] | None = None) -> list[ExecResult]:
        """Score in parallel over the pool; results keep the order of `items`; on_done(i) as each finishes."""
        limits = list(time_limits) if time_limits is not None else [None] * len(items)
        futures = []
        for i, ((task, code), lim) in enumerate(zip(items, limits, strict=True)):
            future = self.submit(self.job_for(task, code, lim))
            if on_done is not None:
                future.add_done_callback(lambda _f, i=i: on_done(i))
            futures.append(future)
        return [grade(task, f.result()) for (task, _), f in zip(items, futures)]


def time_limits_for(cfg: ExecutorConfig, n_tests: int, reference_cpu_s: Sequence[float] | None = None) -> tuple[float, ...]:
    """Per-test limits: max(time_floor_s, time_factor × the reference's CPU seconds on that test, when known)."""
    if reference_cpu_s is None:
        return (cfg.time_floor_s,) * n_tests
    if len(reference_cpu_s) != n_tests:
        raise SandboxError(f"reference_cpu_s has {len(reference_cpu_s)} entries for {n_tests} tests; give one per test")
    return tuple(max(cfg.time_floor_s, cfg.time_factor * t) for t in reference_cpu_s)


def _raw_run(reply: dict, n: int) -> RawRun:
    outcomes = tuple(_raw_outcome(t) for t in reply["tests"])
    if len(outcomes) != n:
        raise SandboxError(f"zygote returned {len(outcomes)} outcomes for {n} tests")
    load = reply.get("load") or {}
    return RawRun(outcomes=outcomes, cpu_time_s=float(reply["cpu"]), peak_memory_kb=int(reply["maxrss"]),
                  wall_time_s=float(reply["wall"]), output_bytes=int(reply["out_bytes"]), output=reply["output"],
                  load_status=load.get("status"), load_error=load.get("error"), events=tuple(reply["events"]))


_KINDS = {kind.value: kind for kind in OutcomeKind}


def _raw_outcome(t: dict) -> RawOutcome:
    kind = _KINDS[t["kind"]]
    if kind is not OutcomeKind.VALUE:
        return RawOutcome(kind, error=t.get("error"))
    try:
        return RawOutcome(kind, value=codec.decode(t["value"]))
    except codec.Unencodable as exc:
        return RawOutcome(OutcomeKind.UNENCODABLE, error=str(exc))
