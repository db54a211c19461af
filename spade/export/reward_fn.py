"""SPADE's reward as an entry point for external trainers: verl's `compute_score` (one answer, or a batch) and
OpenRLHF's `reward_func`.

In: the model's answer text and the ground truth JSON that `spade export` wrote (tests, hidden ones included).
Out: the `spade.reward.compute_reward` total after extracting, screening and running the code in SPADE's sandbox,
with per-answer figures beside it (`spade.env.grading.Graded.summary`).
verl (contract as of its 2026 releases): `custom_reward_function.path=<this file>` and `.name=compute_score`
(`reward.custom_reward_function.*` in newer releases); with `reward_model.reward_manager=batch`, name
`compute_score_batch`. OpenRLHF (>= 0.8.8): `--reward.remote_url <this file> --data.label_key label`.
Env SPADE_CONFIG (a YAML path) sets the executor and reward sections.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from spade.env.grading import Answer, Graded, grade_shared
from spade.export.truth import task_from_ground_truth
from spade.policy.prompts import ASSISTANT_PREFILL

def compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: dict | None = None,
                  **kwargs: Any) -> dict[str, float]:
    """verl's custom reward signature: a dict whose `score` is the reward; the other keys are logged by verl.
    `solution_str` is the response alone (verl's prompts end with the generation prompt, not inside a fence)."""
    return _graded([Answer(_task(ground_truth), solution_str, prefilled=False)])[0].summary()


def compute_score_batch(data_sources: Sequence[str], solution_strs: Sequence[str], ground_truths: Sequence[Any],
                        extra_infos: Sequence[dict | None] | None = None, **kwargs: Any) -> list[dict[str, float]]:
    """verl's batch reward manager's signature: one dict per answer, graded in parallel over the sandbox pool."""
    answers = [Answer(_task(gt), text, prefilled=False)
               for text, gt in zip(solution_strs, ground_truths, strict=True)]
    return [g.summary() for g in _graded(answers)]


def reward_func(queries: Sequence[str], prompts: Sequence[str], labels: Sequence[Any], **kwargs: Any) -> dict:
    """OpenRLHF's custom reward function. A query is the prompt followed by the response; a prompt SPADE rendered
    with a tokenizer ends inside the opening fence, one OpenRLHF rendered from messages does not.
    Returns {"rewards": reward totals, "scores": pass fractions in [0, 1] (for dynamic filtering),
    "extra_logs": batch means of the per-answer figures}."""
    answers = []
    for query, prompt, label in zip(queries, prompts, labels, strict=True):
        split = query.startswith(prompt)
        response = query[len(prompt):] if split else query
        answers.append(Answer(_task(label), response, prefilled=split and prompt.endswith(ASSISTANT_PREFILL)))
    graded = _graded(answers)
    logs = {k: sum(g.summary()[k] for g in graded) / len(graded) for k in graded[0].summary()} if graded else {}
    return {
        "rewards": _tensor([g.reward.total for g in graded]),
        "scores": _tensor([g.reward.pass_fraction for g in graded]),
        "extra_logs": {f"spade/{k}": v for k, v in logs.items()},
    }


def score_answer(text: str, ground_truth: Any, *, prefilled: bool) -> float:
    """One answer's reward total."""
    return _graded([Answer(_task(ground_truth), text, prefilled)])[0].reward.total


def _task(ground_truth: Any) -> Any:
    """SPADE's ground truth as the string the exporter wrote, or already parsed by the trainer's data loader."""
    return task_from_ground_truth(ground_truth if isinstance(ground_truth, str) else json.dumps(ground_truth))


def _tensor(values: list[float]) -> Any:
    """A float32 tensor where torch is installed (OpenRLHF's documented type), else the list."""
    try:
        import torch
    except ImportError:
        return values
    return torch.tensor(values, dtype=torch.float32)


def _graded(answers: list[Answer]) -> list[Graded]:
    return grade_shared(answers)
