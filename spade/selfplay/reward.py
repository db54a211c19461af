"""The proposer's reward for one proposal: learnability from the solver's own rollouts, less the penalties.

learnability = 1 - mean solve rate while 0 < rate < 1, else 0 (spade.reward.learnability); a near-duplicate of a
recent proposal loses duplicate_penalty times its similarity (1 for an exact duplicate); an invalid proposal (no
program, no inputs, or refused by validation) earns minus invalid_penalty. Pure functions of their arguments.
"""

from __future__ import annotations

from spade.config import SelfplayConfig
from spade.reward import learnability


def proposal_reward(cfg: SelfplayConfig, *, valid: bool, solve_rate: float | None, similarity: float,
                    duplicate: bool) -> tuple[float, float]:
    """(learnability, reward) of one proposal."""
    if not valid:
        return 0.0, -cfg.invalid_penalty
    learn = learnability(solve_rate) if solve_rate is not None else 0.0
    penalty = cfg.duplicate_penalty * similarity if duplicate else 0.0
    return learn, learn - penalty
