"""SandboxPool: warm workers behind one submit/run/score interface, shared by validate, sample and evaluate.

in: an ExecutorConfig; Jobs, or (Task, code) pairs. out: RawRun (ungraded) or ExecResult (graded).
Whatever happens to a candidate is its verdict: a worker that dies or stalls during a job is replaced and the
job run once more on the fresh worker (a stall under heavy load is the machine's doing); a second death, or a
malformed reply, gives that job internal_error. Only a worker that cannot be started raises SandboxError.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import queue
import select
import threading
import warnings
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from typing import Any

from spade.config import ExecutorConfig
from spade.errors import SandboxError
from spade.records import ExecResult, Task
from spade.sandbox.grade import grade
from spade.sandbox.inside import codec
from spade.sandbox.job import Job, OutcomeKind, RawOutcome, RawRun
from spade.sandbox.layers import plan_for
from spade.sandbox.program import ProgramJob, ProgramRun, parse_program_reply, program_internal_error
from spade.sandbox.worker import Worker, WorkerDied
from spade.untrusted import excerpt

log = logging.getLogger("spade.sandbox")
UID_BASE = 62000
UID_BLOCK = 64
MAX_JOB_VALUE_CHARS = 8_000_000
"""Encoded return values decoded per job (all tests together); values past it are unencodable, undecoded."""
MAX_ERROR_BYTES = 2_000  # of a load error or a test's error text, as kept in the verdict and the run database
JOB_ATTEMPTS = 2
"""Workers a job may be tried on when the one running it dies or stalls (the first, then one fresh successor)."""
_uid_blocks = itertools.count()


class UnsafeSandboxWarning(UserWarning):
    """Candidate code is running without isolation (executor.isolation = 'none')."""


class SandboxPool:
    def __init__(self, cfg: ExecutorConfig) -> None:
        if cfg.mode == "subprocess":
            raise SandboxError(
                "executor.mode = 'subprocess' is the unsafe prototype executor, kept only for bench/sandbox.py; "
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
        n = self._slots = cfg.worker_count  # read once: with executor.workers 0 it reads the host
        self._tmpfs = cfg.tmpfs_size_mb << 20
        self._memory_bytes = cfg.memory_bytes
        self._free: queue.Queue[tuple[int, Worker]] = queue.Queue()
        self._all: dict[int, Worker] = {}
        self._lock = threading.Lock()
        # Workers with another hash seed (Job.hash_seed), one per seed, started on first use in slots n, n+1, ...
        self._seeded: dict[int, queue.Queue[tuple[int, Worker]]] = {}
        self._slot_seed: dict[int, int] = {}
        self._seeded_lock = threading.Lock()
        self._closed = False
        # Workers are spawned from this one long-lived thread (see Worker), then awaited anywhere.
        self._spawner = ThreadPoolExecutor(1, thread_name_prefix="spade-sandbox-spawn")
        workers: list[Worker] = []
        try:
            for slot in range(n):
                workers.append(self._spawner.submit(self._spawn, slot).result())
            for worker in workers:
                worker.wait_ready()
        except BaseException:  # a worker that failed to start, or Ctrl-C meanwhile: none of them outlives this
            for worker in workers:
                worker.close()
            self._spawner.shutdown(wait=True)
            raise
        for slot, worker in enumerate(workers):
            self._all[slot] = worker
            self._free.put((slot, worker))
        self._executor = ThreadPoolExecutor(n, thread_name_prefix="spade-sandbox")

    def _spawn(self, slot: int) -> Worker:
        seed = self._slot_seed.get(slot)
        plan = self.plan if seed is None else replace(self.plan, hash_seed=seed)
        return Worker(plan, self._uid0 + slot, self._tmpfs)

    def _queue_for(self, hash_seed: int | None) -> queue.Queue[tuple[int, Worker]]:
        """The free workers a job with this hash seed may run on: the pool's, or the one worker of that seed."""
        if hash_seed is None or hash_seed == self.plan.hash_seed:
            return self._free
        with self._seeded_lock:
            if hash_seed not in self._seeded:
                if self._closed:
                    raise SandboxError("this SandboxPool is closed; create a new one")
                slot = self._slots + len(self._seeded)
                self._slot_seed[slot] = hash_seed
                worker = self._start(slot)
                with self._lock:
                    self._all[slot] = worker
                free: queue.Queue[tuple[int, Worker]] = queue.Queue()
                free.put((slot, worker))
                self._seeded[hash_seed] = free
            return self._seeded[hash_seed]

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
        # Jobs not yet started are dropped (an interrupted caller is not waiting for them); running ones finish.
        self._executor.shutdown(wait=True, cancel_futures=True)
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
        """Run one job on a free worker. A worker found dead before the job is replaced and the job given to its
        successor; a worker that dies or stalls during the job is replaced and the job run again on its successor
        (a stall under heavy load is not the candidate's verdict), and if that one dies too the verdict is
        internal_error; a reply that is nonsense makes it internal_error at once. Only a replacement that cannot
        start raises (SandboxError)."""
        if self.cfg.isolation == "none":
            warnings.warn("executor.isolation = 'none': candidate code runs without isolation (debugging only)",
                          UnsafeSandboxWarning, stacklevel=2)
        try:  # arguments the codec refuses (nested too deep, too many items) never reach a worker: a verdict
            inputs = Worker.encode_inputs(job)
        except codec.Unencodable as exc:
            return refused_inputs(len(job.inputs), str(exc))
        free = self._queue_for(job.hash_seed)
        slot, worker = free.get()
        try:
            if _gone(worker):  # died between jobs: not this candidate's doing, so it does not cost it a verdict
                worker = self._replace(slot, worker, "it died while idle")
            worker, reply, died = self._attempts(slot, worker, lambda w: w.run(job, inputs))
            if died is not None:
                return internal_error(len(job.inputs), died)
            raw, malformed = _raw_run(reply, len(job.inputs))
            raw = replace(raw, memory_limit_kb=job.memory_bytes // 1024)
            if malformed:
                worker = self._replace(slot, worker, f"its reply was malformed ({malformed})")
            elif reply.get("recycle") is True:  # e.g. its /tmp could not be emptied
                worker = self._replace(slot, worker, "it asked to be recycled")
            return raw
        finally:
            free.put((slot, worker))

    # -- running whole programs -------------------------------------------------------------------------------
    def submit_program(self, job: ProgramJob) -> Future[ProgramRun]:
        if self._closed:
            raise SandboxError("this SandboxPool is closed; create a new one")
        return self._executor.submit(self.run_program, job)

    async def arun_program(self, job: ProgramJob) -> ProgramRun:
        return await asyncio.wrap_future(self.submit_program(job))

    def run_program(self, job: ProgramJob) -> ProgramRun:
        """Run a whole program on a free worker, with the same isolation, replacement and verdict rules as run()."""
        if self.cfg.isolation == "none":
            warnings.warn("executor.isolation = 'none': the program runs without isolation (debugging only)",
                          UnsafeSandboxWarning, stacklevel=2)
        request = job.request(self._tmpfs)
        free = self._queue_for(job.hash_seed)
        slot, worker = free.get()
        try:
            if _gone(worker):
                worker = self._replace(slot, worker, "it died while idle")
            worker, reply, died = self._attempts(slot, worker, lambda w: w.call(request, job.time_limit_s))
            if died is not None:
                return program_internal_error(died)
            try:
                result = parse_program_reply(reply)
            except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
                why = f"{type(exc).__name__}: {str(exc)[:200]}"
                worker = self._replace(slot, worker, f"its reply was malformed ({why})")
                return program_internal_error(f"the sandbox worker sent a malformed reply ({why})")
            if reply.get("recycle") is True:
                worker = self._replace(slot, worker, "it asked to be recycled")
            return result
        finally:
            free.put((slot, worker))

    def _attempts(self, slot: int, worker: Worker, call: Callable[[Worker], Any]) -> tuple[Worker, Any, str | None]:
        """`call(worker)`, and once more on a fresh successor if the worker dies or stalls (JOB_ATTEMPTS tries):
        (the worker now in the slot, the reply, None) or (that worker, None, why every try failed)."""
        for attempt in range(1, JOB_ATTEMPTS + 1):
            try:
                return worker, call(worker), None
            except (WorkerDied, ValueError, TypeError, RecursionError) as exc:  # dead, silent, or not JSON
                worker = self._replace(slot, worker, str(exc)[:300])
                why = f"the sandbox worker died or stalled {attempt} times on this job: {exc}"
        return worker, None, why

    def _replace(self, slot: int, worker: Worker, why: str) -> Worker:
        """Close `worker` and start its successor in the same slot; SandboxError (infrastructure) if it cannot."""
        log.warning("sandbox worker %d is replaced: %s", slot, why)
        worker.close()
        try:
            worker = self._start(slot)
        except SandboxError as exc:
            detail = " ".join(str(exc).split())[:300]  # the zygote's log tail, on one line
            raise SandboxError(f"sandbox worker {slot} could not be replaced ({why[:100]}): {detail}") from None
        with self._lock:
            self._all[slot] = worker
        return worker

    # -- scoring tasks -------------------------------------------------------------------------------------------
    def job_for(self, task: Task, code: str, time_limits: Sequence[float] | None = None) -> Job:
        tests = task.all_tests
        if time_limits is None:
            # The reference's CPU time per test (recorded by validation) sets the limit when it is known.
            ref = task.reference_cpu_s
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


def internal_error(n: int, why: str) -> RawRun:
    """The verdict for a job the sandbox could not judge: every test internal_error, nothing measured."""
    outcome = RawOutcome(OutcomeKind.INTERNAL_ERROR, error=why[:300])
    return RawRun(outcomes=(outcome,) * n, cpu_time_s=0.0, peak_memory_kb=0, wall_time_s=0.0,
                  events=("internal_error",))


def refused_inputs(n: int, why: str) -> RawRun:
    """The verdict for a job whose arguments the codec refuses: every test unencodable, nothing run."""
    outcome = RawOutcome(OutcomeKind.UNENCODABLE, error=excerpt(f"not run: {why}", MAX_ERROR_BYTES))
    return RawRun(outcomes=(outcome,) * n, cpu_time_s=0.0, peak_memory_kb=0, wall_time_s=0.0)


def _gone(worker: Worker) -> bool:
    """True when an idle worker has exited or has something to say (end of file, or bytes nobody asked for)."""
    if worker.proc.poll() is not None or worker.proc.stdout is None:
        return True
    try:
        return bool(select.select([worker.proc.stdout], [], [], 0)[0])
    except (OSError, ValueError):  # a closed pipe
        return True


def _raw_run(reply: Any, n: int) -> tuple[RawRun, str]:
    """The zygote's reply as a RawRun, and '' or what was wrong with it: a reply of the wrong shape is this job's
    internal_error, never a crash."""
    try:
        return _parse_reply(reply, n), ""
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
        why = f"{type(exc).__name__}: {str(exc)[:200]}"
        return internal_error(n, f"the sandbox worker sent a malformed reply ({why})"), why


def _parse_reply(reply: dict, n: int) -> RawRun:
    tests = reply["tests"]
    if type(tests) is not list or len(tests) != n:
        raise ValueError(f"{len(tests) if type(tests) is list else type(tests).__name__} outcomes for {n} tests")
    budget = [MAX_JOB_VALUE_CHARS]
    outcomes = tuple(_raw_outcome(t, budget) for t in tests)
    load = reply.get("load") or {}
    events = reply["events"]
    if type(events) is not list or not all(type(e) is str for e in events):
        raise ValueError("events is not a list of names")
    return RawRun(outcomes=outcomes, cpu_time_s=_number(reply["cpu"]), peak_memory_kb=int(_number(reply["maxrss"])),
                  wall_time_s=_number(reply["wall"]), output_bytes=int(_number(reply["out_bytes"])),
                  output=_text(reply["output"], optional=False), load_status=_text(load.get("status")),
                  load_error=_error(load.get("error")),
                  events=tuple(events))


def _number(value: Any) -> float:
    if type(value) not in (int, float) or not 0 <= value < 1e15:
        raise ValueError(f"a measurement of {value!r:.40} is not a non-negative number")
    return float(value)


def _text(value: Any, optional: bool = True) -> Any:
    if not (optional and value is None) and type(value) is not str:
        raise ValueError(f"expected a string, got {type(value).__name__}")
    return value


def _error(value: Any) -> str | None:
    """An error text the candidate's process can forge (a load-error frame of megabytes): a bounded excerpt."""
    text = _text(value)
    return None if text is None else excerpt(text, MAX_ERROR_BYTES)


_KINDS = {kind.value: kind for kind in OutcomeKind if kind is not OutcomeKind.INTERNAL_ERROR}


def _raw_outcome(t: dict, budget: list[int]) -> RawOutcome:
    kind = _KINDS[t["kind"]]
    if kind is not OutcomeKind.VALUE:
        return RawOutcome(kind, error=_error(t.get("error")))
    text = t["value"]
    if type(text) is not str:
        raise ValueError("a value that is not encoded text")
    # One budget for the whole job: values past it are refused undecoded, so a candidate that sends many large
    # frames costs the host their text, never the objects they would decode into.
    budget[0] -= len(text)
    if budget[0] < 0:
        return RawOutcome(OutcomeKind.UNENCODABLE, error=f"the job's return values together exceed "
                          f"{MAX_JOB_VALUE_CHARS} encoded chars")
    try:
        return RawOutcome(kind, value=codec.decode(text))
    except codec.Unencodable as exc:
        return RawOutcome(OutcomeKind.UNENCODABLE, error=str(exc))
