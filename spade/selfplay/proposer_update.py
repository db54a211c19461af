"""What the proposer role trains on under each in-loop trainer: RFT, DPO and GRPO take its proposals differently.

In: the proposals whose reward is final since the role's last update, as (prompt JSON, completion, reward) rows, and
a function rendering a prompt JSON to the text the policy sees. Out: the training items for the run's trainer.
- RFT: the proposals above selfplay.proposer_min_reward, best first, near-duplicates once (spade.selfplay.reward).
- DPO: pairs of proposals answered to the same rendered proposer prompt, the higher reward chosen over the lower;
  per prompt its best against its worst, then the next best against the next worst, while their rewards differ.
- GRPO: every proposal with a signed weight, its advantage against the proposals of the same role and mode
  (reward minus their mean, over their standard deviation), as AZR's task-relative baselines do per role and mode;
  applied as an advantage-weighted next-token step (a policy gradient on the sampled proposals, one sample each).
Pure functions of their arguments.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Callable, Sequence

Row = tuple[str, str, float]  # (proposer prompt JSON, completion, reward)
MIN_ADVANTAGE = 1e-3  # advantages nearer 0 than this teach nothing and are left out
MIN_SPREAD = 1e-6  # a group whose rewards are all alike has no advantage to give


def preference_rows(rows: Sequence[Row], rendered: Callable[[str], str], limit: int) -> list[tuple[str, str, str]]:
    """(prompt JSON, chosen, rejected) of proposals that answered one rendered prompt, the chosen's reward above the
    rejected's; at most `limit`, the largest reward gaps first."""
    groups: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        groups[rendered(row[0])].append(row)
    pairs: list[tuple[float, tuple[str, str, str]]] = []
    for members in groups.values():
        ranked = sorted(members, key=lambda r: -r[2])
        for k in range(len(ranked) // 2):
            best, worst = ranked[k], ranked[-1 - k]
            if best[2] > worst[2] and best[1] != worst[1]:
                pairs.append((best[2] - worst[2], (best[0], best[1], worst[1])))
    pairs.sort(key=lambda p: -p[0])
    return [pair for _, pair in pairs[:limit]]


def mode_of_prompt(prompt: str) -> str:
    """The mode a stored proposer prompt asked for ('' when the text is not one)."""
    try:
        return str(json.loads(prompt).get("mode", ""))
    except (ValueError, AttributeError):
        return ""


def advantages(rows: Sequence[Row], limit: int) -> list[tuple[str, str, float]]:
    """(prompt JSON, completion, advantage): each reward against the mean and spread of its mode's (the proposer
    role's baseline per mode); groups whose rewards are all alike, and advantages near 0, are left out. At most
    `limit`, the largest |advantage| first."""
    groups: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        groups[mode_of_prompt(row[0])].append(row)
    out: list[tuple[str, str, float]] = []
    for members in groups.values():
        rewards = [r[2] for r in members]
        mean = sum(rewards) / len(rewards)
        spread = math.sqrt(sum((x - mean) ** 2 for x in rewards) / len(rewards))
        if len(members) < 2 or spread < MIN_SPREAD:
            continue
        out.extend((p, c, (r - mean) / spread) for p, c, r in members if abs(r - mean) / spread >= MIN_ADVANTAGE)
    out.sort(key=lambda a: -abs(a[2]))
    return out[:limit]


__all__ = ["Row", "advantages", "mode_of_prompt", "preference_rows"]
