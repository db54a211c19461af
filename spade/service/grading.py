"""SPADE's own grading endpoint: completions (or bare code) for one task, through the same path as `spade run`.

in: a task in SPADE's task schema (hidden tests included), completions as the policy wrote them (code extracted
by the task kind's extractor) or code as is, graded on the one grading path (spade.rollout: screen, execute, reward).
out: per completion the sandbox's verdict per test, the scores and the reward terms, exactly what the loop records
for a rollout (the screen's findings among the events). Expected values never leave the host's side of the
sandbox; the response holds only what the client sent and the verdicts.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from pydantic import BaseModel, Field, model_validator

from spade.records import Candidate, Completion, Rollout, Task
from spade.rollout import Grader

MAX_ANSWERS = 256


class GradeRequest(BaseModel):
    task: dict[str, Any] = Field(..., description="one task in SPADE's task schema (hidden_test_cases allowed)")
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


def grade_request(request: GradeRequest, task: Task, grader: Grader) -> list[Rollout]:
    """Every answer of the request graded on the one grading path (spade.rollout), in order."""
    n = len(request.answers)
    ids = [f"{task.task_id}:grade:{k}" for k in range(n)]
    if request.code is not None:
        candidates = [Candidate(cid, task.task_id, code, code, "", "") for cid, code in zip(ids, request.code)]
        return grader.grade_candidates([task] * n, candidates)
    return grader.grade([task] * n, [Completion(text) for text in request.answers], ids=ids,
                        prefilled=request.prefilled)


def graded(rollout: Rollout) -> dict[str, Any]:
    result = rollout.result
    return {
        "code": rollout.candidate.code, "status": result.status.value, "score": result.score,
        "public_score": result.public_score, "hidden_score": result.hidden_score, "reward": asdict(rollout.reward),
        "tests": [dict(asdict(t), status=t.status.value) for t in result.tests],
        "cpu_time_s": result.cpu_time_s, "peak_memory_kb": result.peak_memory_kb, "wall_time_s": result.wall_time_s,
        "events": list(result.events), "load_error": result.load_error,
    }
