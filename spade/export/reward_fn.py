"""SPADE's reward as an entry point for external trainers: verl's `compute_score` (one answer, or a batch) and
OpenRLHF's `reward_func`.

In: the model's answer text and the ground truth JSON that `spade export` wrote (tests, hidden ones included).
Out: the `spade.reward.compute_reward` total after extracting, screening and running the code in SPADE's sandbox,
with per-answer figures beside it (`spade.env.grading.Graded.summary`).
verl 0.9.1: `reward.custom_reward_function.path=<this file> reward.custom_reward_function.name=compute_score`
under the reward loop's `naive` (default) or `dapo` manager, which call it once per sample with keyword arguments
(tests/env/test_verl_integration.py runs both). `compute_score_batch` keeps the older batch managers' signature.
OpenRLHF (>= 0.8.8): `--reward.remote_url <this file> --data.label_key label`.
Env SPADE_CONFIG (a YAML path) sets the executor and reward sections.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence
from typing import Any

from spade.env.environment import RUN_DIR_KEY
from spade.env.grading import Answer, Graded, grade_shared
from spade.groundtruth import task_from_ground_truth
from spade.policy.prompts import build_prompt


def compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: dict | None = None,
                  **kwargs: Any) -> dict[str, float]:
    """verl's custom reward signature: a dict whose `score` is the reward; the other keys are logged by verl.
    `solution_str` is the response alone (verl's prompts end with the generation prompt, not inside a fence).
    Rows from `spade.env.verl.SpadeDataset` name their run and step group: the answer is graded at once and
    reported with the rest of its step, as one iteration, when the group's last answer is graded."""
    return compute_score_batch([data_source], [solution_str], [ground_truth], [extra_info])[0]


def compute_score_batch(data_sources: Sequence[str], solution_strs: Sequence[str], ground_truths: Sequence[Any],
                        extra_infos: Sequence[dict | None] | None = None, **kwargs: Any) -> list[dict[str, float]]:
    """One dict per answer, graded in parallel over the sandbox pool. Answers to rows of a live SPADE environment
    are reported to it: by step group when the rows carry one, else one iteration per run and call."""
    from spade.env import groups
    from spade.env.groups import GROUP_KEY, GROUP_SIZE_KEY

    infos = list(extra_infos) if extra_infos is not None else [None] * len(solution_strs)
    out: list[dict[str, float] | None] = [None] * len(solution_strs)
    live: dict[str, list[int]] = {}
    plain = []
    for i, info in enumerate(infos):
        run_dir = info.get(RUN_DIR_KEY) if isinstance(info, dict) else None
        if run_dir and info.get("task_id"):
            live.setdefault(str(run_dir), []).append(i)
        else:
            plain.append(i)
    for run_dir, idx in live.items():
        env = _environment(run_dir)
        graded = env.score([infos[i]["task_id"] for i in idx], [solution_strs[i] for i in idx])
        by_group: dict[tuple[Any, Any], list[Graded]] = {}
        for i, g in zip(idx, graded):
            out[i] = g.summary()
            by_group.setdefault((infos[i].get(GROUP_KEY), infos[i].get(GROUP_SIZE_KEY)), []).append(g)
        for (key, size), members in by_group.items():
            if key is None:
                env.report(members, model="verl")
            else:
                groups.add(env, key, size, members, model="verl")
    answers = [Answer(_task(ground_truths[i]), solution_strs[i], prefilled=False) for i in plain]
    for i, g in zip(plain, _graded(answers)):
        out[i] = g.summary()
    return [o for o in out if o is not None]


def reward_func(queries: Sequence[str], prompts: Sequence[str], labels: Sequence[Any], **kwargs: Any) -> dict:
    """OpenRLHF's custom reward function. A query is the prompt followed by the response; a prompt SPADE rendered
    with a tokenizer ends with its task kind's prefill (inside the opening fence), one OpenRLHF rendered from
    messages does not.
    Returns {"rewards": reward totals, "scores": pass fractions in [0, 1] (for dynamic filtering),
    "extra_logs": batch means of the per-answer figures}."""
    answers = []
    for query, prompt, label in zip(queries, prompts, labels, strict=True):
        split = query.startswith(prompt)
        response = query[len(prompt):] if split else query
        task = _task(label)
        # The prefill is the task kind's own (a Python fence, a JSON list's first call, a YAML fence, ...).
        answers.append(Answer(task, response, prefilled=split and prompt.endswith(build_prompt(task).prefill)))
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
    return grade_shared(answers) if answers else []


_envs: dict[tuple[int, str], Any] = {}
_envs_lock = threading.Lock()


def _environment(run_dir: str) -> Any:
    """This process's Environment on `run_dir` (opened once)."""
    from spade.env import Environment

    with _envs_lock:
        key = (os.getpid(), run_dir)
        if key not in _envs:
            _envs[key] = Environment.open(run_dir)
        return _envs[key]
