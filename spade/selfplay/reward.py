"""The proposer's reward for one proposal: learnability from the solver's own rollouts, less the penalties.

learnability = 1 - mean solve rate while 0 < rate < 1, else 0 (spade.reward.learnability); a near-duplicate of a
recent proposal loses duplicate_penalty times its similarity (1 for an exact duplicate); an invalid proposal (no
program, no inputs, or refused by validation) earns minus invalid_penalty. `proposer_batch` picks the proposals
the proposer role learns from. Pure functions of their arguments.
"""

from __future__ import annotations

from collections.abc import Sequence

from spade.config import SelfplayConfig
from spade.reward import learnability
from spade.selfplay.diversity import distinct_indices

Example = tuple[str, str, float]  # (proposer prompt JSON, completion, reward)


def proposal_reward(cfg: SelfplayConfig, *, valid: bool, solve_rate: float | None, similarity: float,
                    duplicate: bool) -> tuple[float, float]:
    """(learnability, reward) of one proposal."""
    if not valid:
        return 0.0, -cfg.invalid_penalty
    learn = learnability(solve_rate) if solve_rate is not None else 0.0
    penalty = cfg.duplicate_penalty * similarity if duplicate else 0.0
    return learn, learn - penalty


def proposer_batch(cfg: SelfplayConfig, rows: Sequence[Example]) -> tuple[list[Example], str | None]:
    """The proposer's RFT examples from `rows` (rewards above proposer_min_reward): best first, each group of
    near-duplicate completions once, at most proposer_examples; and why the update waits instead, when fewer than
    proposer_min_examples remain (none: nothing to wait for, the update is skipped)."""
    best = sorted((r for r in rows if r[2] > cfg.proposer_min_reward), key=lambda r: -r[2])
    batch = [best[i] for i in distinct_indices([r[1] for r in best])][: cfg.proposer_examples]
    if batch and len(batch) < cfg.proposer_min_examples:
        return batch, (f"waiting: {len(batch)} distinct proposals above proposer_min_reward, fewer than "
                       f"proposer_min_examples {cfg.proposer_min_examples}")
    return batch, None
