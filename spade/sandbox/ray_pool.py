"""executor.backend = 'ray': sandbox workers as Ray actors, each owning one fork-server worker, on any Ray cluster.

in: an ExecutorConfig (workers = the number of actors, ray_address, ray_cpus_per_worker); Jobs and ProgramJobs.
out: the same RawRun / ProgramRun / ExecResult as the local pool: each actor runs a one-worker SandboxPool, so the
isolation, limits, verdicts and events are the local ones, on whichever node Ray placed the actor. An actor that
dies during a job gives that job internal_error and is replaced; one that cannot be started raises SandboxError.
Ray is imported here only (the `ray` extra); every node needs SPADE installed, and bubblewrap for 'strict'.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from spade.config import ExecutorConfig
from spade.errors import SandboxError
from spade.sandbox.job import Job, RawRun
from spade.sandbox.pool import SandboxPool, internal_error
from spade.sandbox.program import ProgramJob, ProgramRun, program_internal_error

log = logging.getLogger("spade.sandbox")
START_TIMEOUT_S = 120.0
PING_AFTER_IDLE_S = 1.0
"""An actor idle longer than this is pinged (one round trip) before it gets a job; busy actors are not."""


class SandboxActor:
    """The actor: one SandboxPool with a single worker, kept for the actor's life."""

    def __init__(self, cfg: dict[str, Any]) -> None:
        import socket

        self.pool = SandboxPool(ExecutorConfig.model_validate({**cfg, "workers": 1, "backend": "local"}))
        self.where = {"node": socket.gethostname(), "pid": os.getpid(), "layers": dict(self.pool.plan.layers)}

    def ready(self) -> dict[str, Any]:
        return {**self.where, "worker_pids": self.pool.worker_pids()}

    def run(self, job: Job) -> RawRun:
        return self.pool.run(job)

    def run_program(self, job: ProgramJob) -> ProgramRun:
        return self.pool.run_program(job)


class RaySandboxPool(SandboxPool):
    """SandboxPool's interface (submit/run/score/run_program...) over Ray actors. It shares the local pool's
    submission and scoring code; only how a job reaches a worker differs."""

    def __init__(self, cfg: ExecutorConfig) -> None:
        # Ray's failure-signal handler turns a SIGTERM into an abort with a stack dump, which would replace a
        # graceful stop (spade serve) by exit code -6; Ray reads this when it is first imported.
        os.environ.setdefault("RAY_DISABLE_FAILURE_SIGNAL_HANDLER", "1")
        try:
            import ray
        except ImportError:
            raise SandboxError("executor.backend = 'ray' needs Ray: pip install -e '.[ray]'") from None
        self._ray = ray
        if not ray.is_initialized():
            ray.init(address=cfg.ray_address or None, include_dashboard=False, log_to_driver=False,
                     logging_level=logging.WARNING)
        self.cfg = cfg
        self._memory_bytes = cfg.memory_bytes
        self._tmpfs = cfg.tmpfs_size_mb << 20
        self._actor_cls = ray.remote(num_cpus=cfg.ray_cpus_per_worker, max_restarts=0)(SandboxActor)
        self._lock = threading.Lock()
        self._closed = False
        self._actors: dict[int, Any] = {}
        self.placement: dict[int, dict[str, Any]] = {}
        self._free: queue.Queue[tuple[int, Any]] = queue.Queue()
        self._idle_since: dict[int, float] = {}
        n = cfg.worker_count
        actors = [self._actor_cls.remote(cfg.model_dump()) for _ in range(n)]
        try:
            where = ray.get([a.ready.remote() for a in actors], timeout=START_TIMEOUT_S)
        except Exception as exc:  # an actor that cannot start its sandbox: infrastructure
            for actor in actors:
                ray.kill(actor)
            raise SandboxError(f"a Ray sandbox actor failed to start: {_one_line(exc)}") from None
        for slot, (actor, info) in enumerate(zip(actors, where)):
            self._actors[slot], self.placement[slot] = actor, info
            self._free.put((slot, actor))
        self.plan = _Plan(where[0]["layers"])
        self._executor = ThreadPoolExecutor(n, thread_name_prefix="spade-ray-sandbox")

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        # Jobs not yet started are dropped (an interrupted caller is not waiting for them); running ones finish.
        self._executor.shutdown(wait=True, cancel_futures=True)
        for actor in self._actors.values():
            self._ray.kill(actor)

    def worker_pids(self) -> list[int]:
        """Pids of the actors' processes (on their nodes)."""
        return [info["pid"] for info in self.placement.values()]

    def run(self, job: Job) -> RawRun:
        return self._call("run", job, lambda why: internal_error(len(job.inputs), why))

    def run_program(self, job: ProgramJob) -> ProgramRun:
        job.request(self._tmpfs)  # refuses files larger than /tmp here, as the local pool does
        return self._call("run_program", job, program_internal_error)

    def _call(self, method: str, job: Any, failed: Any) -> Any:
        slot, actor = self._free.get()
        try:
            if time.monotonic() - self._idle_since.get(slot, 0.0) > PING_AFTER_IDLE_S and not self._alive(actor):
                # died while idle (its node lost, killed): not this job's doing, so it does not cost it a verdict
                actor = self._replace(slot, actor, "it died while idle")
            return self._ray.get(getattr(actor, method).remote(job))
        except self._ray.exceptions.RayActorError as exc:  # the actor (or its node) died during the job
            actor = self._replace(slot, actor, _one_line(exc))
            return failed(f"the Ray sandbox actor died during the job: {_one_line(exc)}")
        finally:
            self._idle_since[slot] = time.monotonic()
            self._free.put((slot, actor))

    def _alive(self, actor: Any) -> bool:
        try:
            self._ray.get(actor.ready.remote(), timeout=START_TIMEOUT_S)
            return True
        except (self._ray.exceptions.RayActorError, self._ray.exceptions.GetTimeoutError):
            return False

    def _replace(self, slot: int, actor: Any, why: str) -> Any:
        log.warning("Ray sandbox actor %d is replaced: %s", slot, why[:200])
        self._ray.kill(actor)
        fresh = self._actor_cls.remote(self.cfg.model_dump())
        try:
            info = self._ray.get(fresh.ready.remote(), timeout=START_TIMEOUT_S)
        except Exception as exc:
            raise SandboxError(f"Ray sandbox actor {slot} could not be replaced: {_one_line(exc)}") from None
        with self._lock:
            self._actors[slot], self.placement[slot] = fresh, info
        return fresh


class _Plan:
    """What /v1/status and `spade sandbox check` read of a pool's plan: the layers (as the first actor has them)."""

    def __init__(self, layers: dict[str, bool]) -> None:
        self.layers = layers


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:300]
