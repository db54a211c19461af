"""Paired comparison of two checkpoints on the same tasks: a bootstrap CI of the difference, an exact sign test.

In: per-task scores (pass@1 per task: 0/1 when greedy, a fraction with several samples) of an old and a new
checkpoint, in the same task order. Out: `PairedDiff` (mean difference new - old and its percentile bootstrap
CI, resampling tasks) and the one-sided sign-test p-value that the new checkpoint is worse. Pure functions.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class PairedDiff:
    """new - old, averaged over the shared tasks, with a `level` bootstrap confidence interval [low, high]."""

    diff: float
    low: float
    high: float
    level: float
    n_tasks: int

    def describe(self) -> str:
        """'+0.031 (95% CI -0.012 to +0.074, 164 tasks)'."""
        return (f"{self.diff:+.3f} ({self.level:.0%} CI {self.low:+.3f} to {self.high:+.3f}, "
                f"{self.n_tasks} tasks)")


def paired_bootstrap(old: Sequence[float], new: Sequence[float], *, level: float = 0.95,
                     resamples: int = 10000, seed: int = 0) -> PairedDiff:
    """Percentile bootstrap over tasks of mean(new - old). Same seed, same interval."""
    if len(old) != len(new):
        raise ValueError(f"paired scores differ in length: {len(old)} old, {len(new)} new")
    if not 0 < level < 1:
        raise ValueError(f"level = {level} must lie in (0, 1)")
    n = len(old)
    if n == 0:
        return PairedDiff(0.0, 0.0, 0.0, level, 0)
    diffs = [b - a for a, b in zip(old, new)]
    mean = sum(diffs) / n
    rng = random.Random(seed)
    means = sorted(sum(rng.choices(diffs, k=n)) / n for _ in range(resamples))
    tail = (1 - level) / 2
    low = means[max(0, math.floor(tail * resamples))]
    high = means[min(resamples - 1, math.ceil((1 - tail) * resamples) - 1)]
    # Sums of floats in another order can land an ulp outside; the interval must hold the point estimate.
    return PairedDiff(mean, min(low, mean), max(high, mean), level, n)


def sign_test_worse(old: Sequence[float], new: Sequence[float]) -> float:
    """One-sided exact sign test (McNemar's exact test for pass/fail): P(at least this many tasks got worse
    | a worse and a better task are equally likely). Ties are dropped; no changed task gives p = 1."""
    if len(old) != len(new):
        raise ValueError(f"paired scores differ in length: {len(old)} old, {len(new)} new")
    worse = sum(b < a for a, b in zip(old, new))
    better = sum(b > a for a, b in zip(old, new))
    changed = worse + better
    return sum(math.comb(changed, k) for k in range(worse, changed + 1)) / 2 ** changed


def paired_scores(old: Mapping[str, float], new: Mapping[str, float]) -> tuple[list[str], list[float], list[float]]:
    """(task ids, old scores, new scores) over the tasks both evaluations graded, in `old`'s order."""
    shared = [t for t in old if t in new]
    return shared, [old[t] for t in shared], [new[t] for t in shared]


def mean_per_task(evaluations: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """task id -> mean score over the evaluations that graded it (e.g. one recipe trained from several seeds, each
    graded on the held-out tasks it did not train on), in first-seen order: per-task means pair with another
    checkpoint's scores as one checkpoint's do, and average the seed-to-seed spread out of each task. Keeping
    only the tasks every seed graded would drop each task any seed trained near, the ones training helps most."""
    if not evaluations:
        raise ValueError("mean_per_task needs at least one evaluation")
    graded: dict[str, list[float]] = {}
    for e in evaluations:
        for t, score in e.items():
            graded.setdefault(t, []).append(score)
    return {t: sum(scores) / len(scores) for t, scores in graded.items()}


def per_task_pass(report: Mapping[str, Any]) -> dict[str, float]:
    """task id -> fraction of samples that passed, from an `EvalReport.to_dict()`."""
    rows = report.get("per_task") or []
    return {r["task_id"]: (r["c"] / r["n"] if r["n"] else 0.0) for r in rows}
