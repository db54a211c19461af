"""OpenRLHF's remote reward (`--reward.remote_url http://HOST:PORT/v1/openrlhf/reward`), answered by SPADE's grading.

in: OpenRLHF's request as its remote-reward client posts it (0.11.2, `SingleTurnAgentExecutor`): {"query": [prompt
and response as one text], "prompts": [the prompt], "labels": [the row's label: SPADE's ground truth as `spade
export --format openrlhf` wrote it]}. out: {"rewards": [reward totals], "scores": [pass fractions in [0, 1], for
its dynamic filtering], "extra_logs": {per-answer figures averaged over the request}}, one entry per query, as
SPADE's `reward_func` file returns them. A label that is not SPADE ground truth is a 422 naming the row.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, model_validator

from spade.config import RewardConfig
from spade.env.grading import Answer, Graded, grade
from spade.errors import TaskFormatError
from spade.groundtruth import task_from_ground_truth
from spade.policy.prompts import build_prompt

MAX_QUERIES = 256


class RewardRequest(BaseModel):
    query: list[str] = Field(..., description="per answer: the prompt followed by the model's response")
    prompts: list[str] = Field(..., description="per answer: the prompt alone")
    labels: list[Any] = Field(..., description="per answer: SPADE's ground truth (a JSON string, or parsed)")

    @model_validator(mode="after")
    def _paired(self) -> RewardRequest:
        n = len(self.query)
        if not (len(self.prompts) == len(self.labels) == n):
            raise ValueError(f"{n} query, {len(self.prompts)} prompts and {len(self.labels)} labels; give one each")
        if not 1 <= n <= MAX_QUERIES:
            raise ValueError(f"give 1 to {MAX_QUERIES} queries per request, got {n}")
        return self


def answers_for(request: RewardRequest) -> list[Answer]:
    """One answer per query: the response is the query past its prompt. A prompt that ends with the task kind's
    prefill (SPADE rendered it with a tokenizer) makes the response continue inside the opening fence."""
    import json

    answers = []
    for k, (query, prompt, label) in enumerate(zip(request.query, request.prompts, request.labels)):
        try:
            task = task_from_ground_truth(label if isinstance(label, str) else json.dumps(label))
        except TaskFormatError as exc:
            raise TaskFormatError(f"labels[{k}]: {exc}") from None
        split = query.startswith(prompt)
        response = query[len(prompt):] if split else query
        answers.append(Answer(task, response, prefilled=split and prompt.endswith(build_prompt(task).prefill)))
    return answers


def grade_answers(pool: Any, reward: RewardConfig, answers: list[Answer]) -> list[Graded] | None:
    graded = grade(pool, reward, answers)
    return graded if len(graded) == len(answers) else None


def reward_response(graded: list[Graded]) -> dict[str, Any]:
    summaries = [g.summary() for g in graded]
    logs = {f"spade/{key}": sum(s[key] for s in summaries) / len(summaries) for key in summaries[0]}
    return {"rewards": [g.reward.total for g in graded], "scores": [g.reward.pass_fraction for g in graded],
            "extra_logs": logs}
