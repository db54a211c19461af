"""The HTTP application of `spade serve`: routes over one sandbox pool, behind admission control.

Routes: POST /run_code (SandboxFusion-compatible), POST /v1/grade (SPADE's grading), POST /v1/openrlhf/reward
(OpenRLHF's remote reward), GET /health, GET /v1/ping, GET /v1/status, GET /metrics; with a run directory,
/v1/env/draw, /v1/env/step and /v1/env/status. Every job-running route takes slots from `Admission` (504 when none
frees before its deadline, 429 + Retry-After past the whole queue, 503 while shutting down); a grading request is
checked against the caps first (work.py) and runs at its width, dropped when its client goes. The pool is started
with the application and closed after its in-flight work, within the one shutdown deadline (command.py).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse

from spade.config import SpadeConfig
from spade.errors import TaskFormatError
from spade.rollout import Grader
from spade.service.admission import Admission, Refused
from spade.service.grading import GradeRequest, grade_request, graded
from spade.service.guard import Guard
from spade.service.metrics import Metrics
from spade.service.openrlhf import RewardRequest, answers_for, grade_answers, reward_response
from spade.service.runcode import Limits, RunCodeRequest, RunCodeResponse, job_for, queue_wait_s, response_for
from spade.service.work import (
    LimitTooHigh,
    Throttled,
    TooMuchWork,
    check_work,
    unless_gone_while_queued,
    until_gone,
    width_for,
)
from spade.untrusted import clean

PoolFactory = Callable[[Any], Any]
log = logging.getLogger("spade.service")


class TextJSONResponse(JSONResponse):
    """JSON whose every string is text UTF-8 carries: a lone surrogate anywhere in an answer (a decoded escape in
    a task, a model's output) becomes U+FFFD instead of an encoding error, i.e. an HTTP 500."""

    def render(self, content: Any) -> bytes:
        return clean(json.dumps(content, ensure_ascii=False, allow_nan=False, separators=(",", ":"))).encode("utf-8")


def create_app(cfg: SpadeConfig, token: str | None, pool_factory: PoolFactory | None = None,
               run_dir: str | None = None) -> Guard:
    """The ASGI application; `token` None means no auth. The pool is pool_factory(cfg.executor) (default: the
    executor.backend's pool, local or Ray), started with the application. With `run_dir`, the /v1/env routes
    serve the live curriculum of that run (spade.env.Environment, opened or created there)."""
    serve = cfg.serve
    workers = cfg.executor.worker_count
    concurrency = serve.concurrency or workers
    limits = Limits(max_run_timeout_s=serve.max_run_timeout_s,
                    default_memory_mb=min(cfg.executor.memory_bytes >> 20, serve.max_memory_mb),
                    max_memory_mb=serve.max_memory_mb, max_output_bytes=serve.max_output_bytes)
    metrics = Metrics()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if pool_factory is None:
            from spade.sandbox.backend import open_pool

            factory: PoolFactory = open_pool
        else:
            factory = pool_factory
        app.state.pool = await asyncio.to_thread(factory, cfg.executor)
        app.state.admission = Admission(concurrency, serve.queue_limit)
        app.state.throttles = set()
        app.state.stop_by = None  # the shutdown deadline (time.monotonic()), set when a signal arrives
        asyncio.get_running_loop().set_exception_handler(_loop_error)
        try:
            yield
        finally:
            await _shut_down(app, serve.shutdown_grace_s, environment)

    environment = None
    if run_dir is not None:
        from spade.env import Environment

        environment = Environment.open(run_dir, cfg)

    app = FastAPI(title="spade serve", lifespan=lifespan, docs_url=None, redoc_url=None,
                  default_response_class=TextJSONResponse)
    app.state.metrics = metrics
    if environment is not None:
        from spade.service.environment import router

        app.include_router(router(environment, lambda deadline, weight=1: app.state.admission.slot(deadline, weight),
                                  serve, cfg.executor))

    @app.exception_handler(Refused)
    async def refused(request: Request, exc: Refused) -> JSONResponse:
        headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after is not None else None
        return TextJSONResponse({"detail": str(exc)}, status_code=exc.status, headers=headers)

    @app.exception_handler(TaskFormatError)
    async def bad_task(request: Request, exc: TaskFormatError) -> JSONResponse:
        return TextJSONResponse({"detail": str(exc)}, status_code=422)

    @app.exception_handler(TooMuchWork)
    @app.exception_handler(LimitTooHigh)
    async def over_caps(request: Request, exc: TooMuchWork | LimitTooHigh) -> JSONResponse:
        return TextJSONResponse({"detail": str(exc)}, status_code=exc.status)

    @app.post("/run_code", response_model=RunCodeResponse, response_model_exclude_none=False)
    async def run_code(body: RunCodeRequest, request: Request) -> RunCodeResponse:
        job = job_for(body, limits)
        if isinstance(job, RunCodeResponse):
            request.state.verdict = "refused"
            return job
        admitted = asyncio.Event()

        async def admitted_run() -> Any:
            async with request.app.state.admission.slot(time.monotonic() + queue_wait_s(body, serve)):
                admitted.set()
                return await request.app.state.pool.arun_program(job)

        run = await unless_gone_while_queued(request, admitted_run(), admitted)
        if run is None:
            return _gone(request)
        request.state.verdict = run.verdict.value
        return response_for(run)

    @app.post("/v1/grade")
    async def grade(body: GradeRequest, request: Request) -> Any:
        from spade.taskio import task_from_dict

        task = task_from_dict(body.task)
        check_work([task] * len(body.answers), serve, cfg.executor)
        rollouts = await _bounded(request, len(body.answers),
                                  lambda pool: grade_request(body, task, Grader(pool, cfg.reward)))
        if rollouts is None:
            return _gone(request)
        request.state.verdict = "graded"
        return {"task_id": task.task_id, "results": [graded(r) for r in rollouts]}

    @app.post("/v1/openrlhf/reward")
    async def openrlhf_reward(body: RewardRequest, request: Request) -> Any:
        answers = answers_for(body)
        check_work([a.task for a in answers], serve, cfg.executor)
        results = await _bounded(request, len(answers), lambda pool: grade_answers(pool, cfg.reward, answers))
        if results is None:
            return _gone(request)
        request.state.verdict = "graded"
        return reward_response(results)

    async def _bounded(request: Request, answers: int, work: Callable[[Any], Any]) -> Any:
        """`work(pool)` in a thread, over the pool narrowed to this request's width and holding that many
        slots; None when the client went away first (its pending jobs are dropped)."""
        width = width_for(serve, request.app.state.admission.concurrency, answers)
        async with request.app.state.admission.slot(time.monotonic() + serve.request_timeout_s, weight=width):
            throttle = Throttled(request.app.state.pool, width)
            request.app.state.throttles.add(throttle)
            try:
                return await until_gone(request, throttle, lambda: work(throttle))
            finally:
                throttle.cancel()
                request.app.state.throttles.discard(throttle)

    def _gone(request: Request) -> JSONResponse:
        request.state.verdict = "cancelled"
        return TextJSONResponse({"detail": "the client went away; the request's pending work was dropped"},
                            status_code=499)

    @app.get("/health")
    async def health(request: Request) -> JSONResponse:
        draining = request.app.state.admission.draining
        return TextJSONResponse({"status": "draining" if draining else "ok"}, status_code=503 if draining else 200)

    @app.get("/v1/ping")
    async def ping() -> str:
        return "pong"

    @app.get("/v1/status")
    async def status(request: Request) -> dict[str, Any]:
        admission = request.app.state.admission
        pool = request.app.state.pool
        return {"workers": workers, "isolation": cfg.executor.isolation,
                "layers": {k: v for k, v in getattr(getattr(pool, "plan", None), "layers", {}).items()},
                "concurrency": admission.concurrency, "queue_limit": admission.queue_limit,
                "running": admission.running, "waiting": admission.waiting, "draining": admission.draining,
                "auth": token is not None, **metrics.snapshot()}

    @app.get("/metrics")
    async def prometheus(request: Request) -> PlainTextResponse:
        admission = request.app.state.admission
        gauges = {"running": admission.running, "waiting": admission.waiting, "concurrency": admission.concurrency,
                  "queue_limit": admission.queue_limit, "workers": workers}
        return PlainTextResponse(metrics.prometheus(gauges), media_type="text/plain; version=0.0.4")

    return Guard(app, token=token, max_body_bytes=serve.max_body_bytes, metrics=metrics,
                 read_timeout_s=serve.read_timeout_s, max_buffered_bytes=serve.max_buffered_bytes)


async def _shut_down(app: FastAPI, grace_s: float, environment: Any) -> None:
    """Within the deadline the signal set (serve.shutdown_grace_s after it): let admitted work finish, then close
    the pool. Past it, the requests' pending jobs are dropped and the process ends at once (os._exit: bwrap's
    die-with-parent takes the sandbox workers and their programs with it)."""
    stop_by = app.state.stop_by or time.monotonic() + grace_s
    drained = await app.state.admission.drain(max(0.0, stop_by - time.monotonic()))
    if not drained:
        for throttle in list(app.state.throttles):
            throttle.cancel()
    closing = asyncio.ensure_future(asyncio.to_thread(_close, app.state.pool, environment))
    done, _ = await asyncio.wait({closing}, timeout=max(0.5, stop_by - time.monotonic()) + 0.5)
    if not done:
        log.warning("shutdown deadline (serve.shutdown_grace_s = %g s) passed with sandbox work still running; "
                    "exiting without waiting for it", grace_s)
        for handler in log.handlers:
            handler.flush()
        print(getattr(app.state, "stop_line", "spade serve: stopped at its shutdown deadline"), file=sys.stderr,
              flush=True)
        os._exit(getattr(app.state, "exit_code", None) or 1)


def _close(pool: Any, environment: Any) -> None:
    pool.close()
    if environment is not None:
        environment.close()


def _loop_error(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The event loop's own errors (a refused accept() when descriptors run out, a transport failing) as one log
    line each, without a traceback; the handler's filter keeps repeats to one a second."""
    exc = context.get("exception")
    what = f"{type(exc).__name__}: {str(exc)[:200]}" if exc is not None else ""
    log.warning("event loop: %s %s", str(context.get("message", ""))[:200], what)
