"""Replay: which earlier tasks return to the batch (evolution.replay_ratio; docs/method.md#replay).

In: each stored task's per-iteration pass rates. Out: task ids, prioritising tasks the policy used to
solve and now fails (forgetting), then tasks never solved, then the rest; ties broken by a seeded RNG.
"""

from __future__ import annotations

import random


def choose_replay(history: dict[str, list[float]], count: int, rng: random.Random, exclude: set[str]) -> list[str]:
    if count <= 0:
        return []
    forgotten, unsolved, rest = [], [], []
    for task_id in sorted(history):
        if task_id in exclude:
            continue
        rates = history[task_id]
        if max(rates[:-1], default=0.0) > 0 and rates[-1] < max(rates[:-1]):
            forgotten.append(task_id)
        elif max(rates) == 0.0:
            unsolved.append(task_id)
        elif rates[-1] < 1.0:
            rest.append(task_id)
    chosen: list[str] = []
    for group in (forgotten, unsolved, rest):
        rng.shuffle(group)
        chosen.extend(group[: count - len(chosen)])
    return chosen
