"""The reward: a pure function of (task, candidate code, execution result, config) -> `Reward`.

The terms reward.terms names (spade.reward.terms: the built-ins; spade.reward.register_term: more), each scaled by
reward.weights, summed in the order listed: bonuses added, penalties subtracted, each reported separately.
"""

from __future__ import annotations

from typing import Any

from spade.config import RewardConfig
from spade.records import ExecResult, Reward, Task, TermValue
from spade.registry import REWARD_TERMS
from spade.reward.base import Outcome, RewardTerm


def compute_reward(task: Task, code: str, result: ExecResult, cfg: RewardConfig) -> Reward:
    """With the default terms: in [-(interference + format + efficiency + memory), 1 + difficulty_bonus]."""
    outcome = Outcome.of(task, code, result, cfg)
    fields: dict[str, Any] = {"pass_fraction": 0.0}
    extra = []
    total = 0.0
    for name in cfg.terms:
        term: RewardTerm = REWARD_TERMS.get(name)
        size = term.size(outcome, cfg)
        weight = cfg.weights.get(name)
        if weight is not None:
            size = weight * size
        total = total - size if term.penalty else total + size
        if term.field is not None:
            fields[term.field] = size
        else:
            extra.append(TermValue(name, -size if term.penalty else size))
    return Reward(total=round(total, 6), hardcoding_suspected=outcome.hardcoding, extra=tuple(extra), **fields)


def learnability(solve_rate: float) -> float:
    """The proposer's reward for a task in self-play: 1 - solve rate while the policy sometimes solves it,
    0 when it always or never does (nothing to learn from either)."""
    if not 0.0 <= solve_rate <= 1.0:
        raise ValueError(f"solve rate {solve_rate} is not a fraction")
    return 1.0 - solve_rate if 0.0 < solve_rate < 1.0 else 0.0
