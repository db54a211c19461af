"""SPADE's reward as an entry point for external trainers: verl's `compute_score` and OpenRLHF's `reward_func`.

In: the model's answer text and the ground truth JSON that `spade export` wrote (tests, hidden ones included).
Out: the `spade.reward.compute_reward` total after running the extracted code in SPADE's sandbox.
verl: custom_reward_function.path=<this file> custom_reward_function.name=compute_score.
OpenRLHF: --remote_rm_url <this file> --label_key label. Env SPADE_CONFIG (a YAML path) sets executor and reward.
"""

from __future__ import annotations

import atexit
import os
import threading
from collections.abc import Sequence
from typing import Any

from spade.config import SpadeConfig, load_config
from spade.export.truth import task_from_ground_truth
from spade.policy.extract import extract_code
from spade.reward import compute_reward

_lock = threading.Lock()
_state: dict[str, Any] = {}


def compute_score(data_source: str, solution_str: str, ground_truth: str, extra_info: dict | None = None) -> float:
    """verl's custom reward signature. `solution_str` is the response alone; it writes its own code fence."""
    return score_answer(solution_str, ground_truth, prefilled=False)


def reward_func(queries: Sequence[str], prompts: Sequence[str], labels: Sequence[str]) -> Any:
    """OpenRLHF's custom reward signature: queries are prompt + response; the prompt ends inside the fence."""
    import torch

    rewards = []
    for query, prompt, label in zip(queries, prompts, labels, strict=True):
        response = query[len(prompt):] if query.startswith(prompt) else query
        rewards.append(score_answer(response, label, prefilled=query.startswith(prompt)))
    return torch.tensor(rewards, dtype=torch.float32)


def score_answer(text: str, ground_truth: str, *, prefilled: bool) -> float:
    """Extract, run on every test (public and hidden) in the shared pool, and reward."""
    task = task_from_ground_truth(ground_truth)
    code = extract_code(text, task.entry_point, prefilled=prefilled)
    pool, cfg = _pool()
    result = pool.score(task, code)  # empty code comes back a no-entry-point verdict: a format failure
    return compute_reward(task, code, result, cfg.reward).total


def _pool() -> tuple[Any, SpadeConfig]:
    """The module's sandbox pool, started on first use (trainers import this file in processes we do not own)."""
    with _lock:
        if "pool" not in _state:
            from spade.sandbox import SandboxPool

            cfg = load_config(os.environ.get("SPADE_CONFIG") or None)
            _state["cfg"] = cfg
            _state["pool"] = SandboxPool(cfg.executor)
            atexit.register(_state["pool"].close)
        return _state["pool"], _state["cfg"]

