"""The live curriculum over HTTP (`spade serve --run-dir DIR`): draw tasks at the controller's difficulty, report
graded answers back so the controller moves and the run records them, exactly as `spade.env.Environment` does.

in: POST /v1/env/draw {count?, variant?}; POST /v1/env/step {task_ids, completions, prefilled?, model?, key?};
GET /v1/env/status. out: drawn tasks as a trainer shows them (chat prompt, public tests; hidden tests and expected
values of hidden tests never leave the service), per answer the loop's verdict and reward, and the committed
iteration's decisions and metrics. The environment keeps its own sandbox pool and the run's SQLite database.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import asdict
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from pydantic import BaseModel, Field, model_validator

from spade.errors import StoreError
from spade.records import Task

MAX_DRAW = 256
MAX_ANSWERS = 1024


class DrawRequest(BaseModel):
    count: int | None = Field(None, ge=1, le=MAX_DRAW, description="tasks to draw (default generation.tasks_per_iteration)")
    variant: int = Field(0, ge=0, description="prompt variant for the chat messages")


class StepRequest(BaseModel):
    task_ids: list[str] = Field(..., description="one drawn task id per completion")
    completions: list[str] = Field(..., description="the model's answers, in task_ids' order")
    prefilled: bool = Field(False, description="the prompts ended inside an opening code fence")
    model: str = Field("external", description="the policy's name, for the audit trail")
    key: str | None = Field(None, description="makes a retried report count once")

    @model_validator(mode="after")
    def _paired(self) -> StepRequest:
        if len(self.task_ids) != len(self.completions):
            raise ValueError(f"{len(self.task_ids)} task_ids for {len(self.completions)} completions; give one each")
        if not 1 <= len(self.completions) <= MAX_ANSWERS:
            raise ValueError(f"give 1 to {MAX_ANSWERS} completions per step, got {len(self.completions)}")
        return self


def shown(task: Task) -> dict[str, Any]:
    """What a trainer may see of a task: no hidden test, no reference solution."""
    return {"task_id": task.task_id, "family": task.family, "difficulty": task.difficulty,
            "description": task.description, "signature": task.signature, "entry_point": task.entry_point,
            "test_cases": [{"input": list(t.args), "expected": t.expected} for t in task.test_cases]}


def router(env: Any, slot: Any, timeout_s: float) -> APIRouter:
    """The /v1/env routes over `env` (a spade.env.Environment); `slot(deadline)` is the admission context."""
    api = APIRouter()

    @api.post("/v1/env/draw")
    async def draw(body: DrawRequest, request: Request) -> dict[str, Any]:
        async with slot(time.monotonic() + timeout_s):
            drawn = await asyncio.to_thread(env.draw, body.count)
        request.state.verdict = "drawn"
        return {"tasks": [{**shown(d.task), "origin": d.origin, "iteration": d.iteration,
                           "prompt": d.messages(body.variant)} for d in drawn]}

    @api.post("/v1/env/step")
    async def step(body: StepRequest, request: Request) -> dict[str, Any]:
        try:
            await asyncio.to_thread(lambda: [env.task(task_id) for task_id in set(body.task_ids)])
        except StoreError as exc:  # a task this run never drew
            raise HTTPException(404, detail=str(exc)) from None
        async with slot(time.monotonic() + timeout_s):
            graded, report = await asyncio.to_thread(
                env.step, body.task_ids, body.completions, prefilled=body.prefilled, model=body.model, key=body.key)
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
