"""The HTTP application of `spade serve`: routes over one sandbox pool, behind admission control.

Routes: POST /run_code (SandboxFusion-compatible), POST /v1/grade (SPADE's grading), GET /health, GET /v1/ping,
GET /v1/status, GET /metrics; with a run directory, /v1/env/draw, /v1/env/step and /v1/env/status. Every job-running route takes a slot from `Admission` (429 + Retry-After when the
queue is full, 504 when no slot frees before serve.request_timeout_s, 503 while shutting down). The pool is
started with the application and closed after its in-flight work (see command.py for the signals).
"""

from __future__ import annotations

import asyncio
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
from spade.service.runcode import Limits, RunCodeRequest, RunCodeResponse, job_for, response_for

PoolFactory = Callable[[Any], Any]


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
        try:
            yield
        finally:
            await app.state.admission.drain(serve.shutdown_grace_s)
            await asyncio.to_thread(app.state.pool.close)
            if environment is not None:
                await asyncio.to_thread(environment.close)

    environment = None
    if run_dir is not None:
        from spade.env import Environment

        environment = Environment.open(run_dir, cfg)

    app = FastAPI(title="spade serve", lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.metrics = metrics
    if environment is not None:
        from spade.service.environment import router

        app.include_router(router(environment, lambda deadline: app.state.admission.slot(deadline),
                                  serve.request_timeout_s))

    @app.exception_handler(Refused)
    async def refused(request: Request, exc: Refused) -> JSONResponse:
        headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after is not None else None
        return JSONResponse({"detail": str(exc)}, status_code=exc.status, headers=headers)

    @app.exception_handler(TaskFormatError)
    async def bad_task(request: Request, exc: TaskFormatError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=422)

    @app.post("/run_code", response_model=RunCodeResponse, response_model_exclude_none=False)
    async def run_code(body: RunCodeRequest, request: Request) -> RunCodeResponse:
        job = job_for(body, limits)
        if isinstance(job, RunCodeResponse):
            request.state.verdict = "refused"
            return job
        deadline = time.monotonic() + serve.request_timeout_s
        async with request.app.state.admission.slot(deadline):
            run = await request.app.state.pool.arun_program(job)
        request.state.verdict = run.verdict.value
        return response_for(run)

    @app.post("/v1/grade")
    async def grade(body: GradeRequest, request: Request) -> dict[str, Any]:
        from spade.taskio import task_from_dict

        task = task_from_dict(body.task)
        grader = Grader(request.app.state.pool, cfg.reward)
        async with request.app.state.admission.slot(time.monotonic() + serve.request_timeout_s):
            rollouts = await asyncio.to_thread(grade_request, body, task, grader)
        request.state.verdict = "graded"
        return {"task_id": task.task_id, "results": [graded(r) for r in rollouts]}

    @app.get("/health")
    async def health(request: Request) -> JSONResponse:
        draining = request.app.state.admission.draining
        return JSONResponse({"status": "draining" if draining else "ok"}, status_code=503 if draining else 200)

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

    return Guard(app, token=token, max_body_bytes=serve.max_body_bytes, metrics=metrics)
