"""SPADE's own grading endpoint: completions (or bare code) for one task, through the same path as `spade run`.

in: a task in the write-up's schema (hidden tests included), completions as the policy wrote them (code extracted
by the policy's extractor) or code as is. out: per completion the sandbox's verdict per test, the scores and the
reward terms (spade.reward), exactly what the loop records for a rollout. Expected values never leave the host's
side of the sandbox; the response holds only what the client sent and the verdicts. The pre-execution screen's
findings join the events, as in the loop.
"""

from __future__ import annotations

from dataclasses import asdict, replace
from typing import Any

from pydantic import BaseModel, Field, model_validator

from spade.config import RewardConfig
from spade.policy.extract import extract_code
from spade.records import ExecResult, Task
from spade.reward import compute_reward

MAX_ANSWERS = 256


class GradeRequest(BaseModel):
    task: dict[str, Any] = Field(..., description="one task in the write-up's schema (hidden_test_cases allowed)")
    completions: list[str] | None = Field(None, description="model outputs; the code is extracted from each")
    code: list[str] | None = Field(None, description="code to run as is (instead of completions)")
    prefilled: bool = Field(False, description="the prompt ended inside an opening code fence")

    @model_validator(mode="after")
    def _one_kind(self) -> GradeRequest:
        answers = (self.completions is not None) + (self.code is not None)
        if answers != 1:
            raise ValueError("give exactly one of completions or code")
        if not 1 <= len(self.answers) <= MAX_ANSWERS:
            raise ValueError(f"give 1 to {MAX_ANSWERS} answers per request, got {len(self.answers)}")
        return self

    @property
    def answers(self) -> list[str]:
        return self.completions if self.completions is not None else (self.code or [])


def code_of(request: GradeRequest, task: Task) -> list[str]:
    if request.code is not None:
        return list(request.code)
    return [extract_code(text, task.entry_point, prefilled=request.prefilled) for text in request.answers]


def screened(code: str, result: ExecResult) -> ExecResult:
    """The pre-execution screen's findings (spade.audit) added to the events, as the loop adds them."""
    from spade.audit import screen_code

    found = screen_code(code)
    return replace(result, events=result.events + tuple(f"screen:{f}" for f in found)) if found else result


def graded(task: Task, code: str, result: ExecResult, reward_cfg: RewardConfig) -> dict[str, Any]:
    result = screened(code, result)
    reward = compute_reward(task, code, result, reward_cfg)
    return {
        "code": code, "status": result.status.value, "score": result.score, "public_score": result.public_score,
        "hidden_score": result.hidden_score, "reward": asdict(reward),
        "tests": [dict(asdict(t), status=t.status.value) for t in result.tests],
        "cpu_time_s": result.cpu_time_s, "peak_memory_kb": result.peak_memory_kb, "wall_time_s": result.wall_time_s,
        "events": list(result.events), "load_error": result.load_error,
    }
