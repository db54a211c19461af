"""The live curriculum over HTTP (`spade serve --run-dir DIR`): draw tasks at the controller's difficulty, report
graded answers back so the controller moves and the run records them, exactly as `spade.env.Environment` does.

in: POST /v1/env/draw {count?, variant?}; POST /v1/env/step {task_ids, completions, prefilled?, model?, key?};
GET /v1/env/status. out: drawn tasks as a trainer shows them (chat prompt, the public tests as the task's kind shows
them; hidden tests, and expected values that are answers, never leave the service), per answer the loop's verdict and reward, and the committed
iteration's decisions and metrics. The environment keeps its own sandbox pool and the run's SQLite database.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import asdict
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field, model_validator

from spade.config import ExecutorConfig, ServeConfig
from spade.errors import StoreError
from spade.service.work import Throttled, check_work, until_gone, width_for

MAX_DRAW = 256
MAX_ANSWERS = 1024
MAX_ID_CHARS = 1024  # a task id (the store's ids are short: a family and a digest)
MAX_KEY_CHARS = 1024  # a report's idempotency key


class DrawRequest(BaseModel):
    count: int | None = Field(None, ge=1, le=MAX_DRAW, description="tasks to draw (default generation.tasks_per_iteration)")
    variant: int = Field(0, ge=0, description="prompt variant for the chat messages")


class StepRequest(BaseModel):
    task_ids: list[Annotated[str, Field(max_length=MAX_ID_CHARS)]] = Field(..., description="one drawn task id per "
                                                                                              "completion")
    completions: list[str] = Field(..., description="the model's answers, in task_ids' order")
    prefilled: bool = Field(False, description="the prompts ended inside an opening code fence")
    model: str = Field("external", description="the policy's name, for the audit trail (stored as a bounded excerpt)")
    key: str | None = Field(None, max_length=MAX_KEY_CHARS, description="makes a retried report count once")

    @model_validator(mode="after")
    def _paired(self) -> StepRequest:
        if len(self.task_ids) != len(self.completions):
            raise ValueError(f"{len(self.task_ids)} task_ids for {len(self.completions)} completions; give one each")
        if not 1 <= len(self.completions) <= MAX_ANSWERS:
            raise ValueError(f"give 1 to {MAX_ANSWERS} completions per step, got {len(self.completions)}")
        return self


def router(env: Any, slot: Any, serve: ServeConfig, executor: ExecutorConfig) -> APIRouter:
    """The /v1/env routes over `env` (a spade.env.Environment); `slot(deadline, weight)` is the admission context.
    A step is bounded as /v1/grade is: its test runs by serve.max_grade_runs (413), its width by
    serve.grade_parallelism (the slots it holds), its whole time, waiting included, by serve.request_timeout_s (504,
    its pending jobs dropped), and a client that leaves drops its pending jobs (499); nothing is reported then."""
    timeout_s = serve.request_timeout_s
    api = APIRouter()

    @api.post("/v1/env/draw")
    async def draw(body: DrawRequest, request: Request) -> dict[str, Any]:
        async with slot(time.monotonic() + timeout_s):
            drawn = await asyncio.to_thread(env.draw, body.count)
        request.state.verdict = "drawn"
        return {"tasks": [{**d.shown(), "origin": d.origin, "iteration": d.iteration,
                           "prompt": d.messages(body.variant)} for d in drawn]}

    @api.post("/v1/env/step")
    async def step(body: StepRequest, request: Request) -> Any:
        try:
            known = await asyncio.to_thread(lambda: {i: env.task(i) for i in set(body.task_ids)})
        except StoreError as exc:  # a task this run never drew
            raise HTTPException(404, detail=str(exc)) from None
        tasks = [known[i] for i in body.task_ids]
        check_work(tasks, serve, executor)
        deadline = time.monotonic() + timeout_s
        width = width_for(serve, max(1, executor.worker_count), len(tasks))
        async with slot(deadline, width):
            holder: list[Throttled] = []

            def through(pool: Any) -> Throttled:
                holder.append(Throttled(pool, width))
                return holder[-1]

            def cancel() -> None:
                for throttle in holder:
                    throttle.cancel()

            work = asyncio.ensure_future(until_gone(request, _Cancels(cancel), lambda: env.score(
                tasks, body.completions, prefilled=body.prefilled, through=through)))
            try:
                graded = await asyncio.wait_for(asyncio.shield(work), max(0.0, deadline - time.monotonic()))
            except TimeoutError:
                cancel()
                await work  # the jobs already running finish within their own limits; nothing is reported
                request.state.verdict = "timeout"
                return JSONResponse({"detail": f"the step did not finish within serve.request_timeout_s = "
                                               f"{timeout_s:g} s; its pending answers were dropped and nothing was "
                                               "reported: send fewer answers per step"}, status_code=504)
            finally:
                cancel()
            if graded is None or len(graded) != len(tasks):
                request.state.verdict = "cancelled"
                return JSONResponse({"detail": "the client went away; the step's pending work was dropped"},
                                    status_code=499)
            report = await asyncio.to_thread(env.report, graded, model=body.model, key=body.key)
        request.state.verdict = "reported"
        return {"results": [{"task_id": g.answer.task.task_id, "code": g.code, "status": g.result.status.value,
                             "findings": list(g.findings), "events": list(g.result.events), **g.summary(),
                             "reward": asdict(g.reward)} for g in graded],
                "report": {"iteration": report.iteration, "committed": report.committed, "metrics": report.metrics,
                           "decisions": [asdict(d) for d in report.decisions]}}

    @api.get("/v1/env/status")
    async def status() -> dict[str, Any]:
        difficulties = await asyncio.to_thread(env.difficulties)
        return {"run_dir": str(env.run_dir), "difficulties": difficulties}

    return api


class _Cancels:
    """What until_gone cancels: every throttle a step graded through."""

    def __init__(self, cancel: Any) -> None:
        self.cancel = cancel
