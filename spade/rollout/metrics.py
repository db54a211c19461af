"""The metrics one iteration records about its tasks and rollouts, the same for the loop and the environment's
reports (spade.pipeline.loop, spade.env).

In: the rollouts, how many tasks were accepted, replayed and rejected, and the controller. Out: name -> value.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from spade.records import Rollout

if TYPE_CHECKING:
    from spade.curriculum import Controller


def iteration_metrics(rollouts: Sequence[Rollout], *, accepted: int, replayed: int, rejected: int,
                      controller: Controller) -> dict[str, float]:
    """Task counts, pass rate, mean reward, timeout / no-code shares, hard-coding flags, difficulty per family."""
    n = len(rollouts)
    m: dict[str, float] = {
        "tasks_accepted": float(accepted),
        "tasks_replayed": float(replayed),
        "tasks_rejected": float(rejected),
        "rollouts": float(n),
        "pass_rate": sum(r.passed for r in rollouts) / n if n else 0.0,
        "mean_reward": sum(r.reward.total for r in rollouts) / n if n else 0.0,
        "timeout_share": sum(r.result.timed_out for r in rollouts) / n if n else 0.0,
        "hardcoding_suspected": float(sum(r.reward.hardcoding_suspected for r in rollouts)),
        "no_code_share": sum(not r.candidate.code for r in rollouts) / n if n else 0.0,
    }
    for name, s in controller.families.items():
        m[f"difficulty/{name}"] = s.difficulty
    return m
