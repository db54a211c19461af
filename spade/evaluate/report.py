"""The result of one evaluation: pass@k overall, per tag and per task's (samples, correct) counts.

In: per-task (n, c) tallies and the tasks' tags. Out: a frozen `EvalReport` with `to_dict()` for JSON.
pass@k is the unbiased estimator averaged over tasks; a k is reported only when every task has n >= k.
"""

from __future__ import annotations

from collections.abc import Sequence

from spade.errors import ConfigError
from spade.policy.passk import pass_at_k
from spade.records import EvalReport, Task

__all__ = ["EvalReport", "build_report", "usable_ks"]


def usable_ks(ks: Sequence[int], samples: int) -> tuple[int, ...]:
    """The requested ks that `samples` completions per task can estimate, sorted and deduplicated."""
    bad = [k for k in ks if isinstance(k, bool) or not isinstance(k, int) or k < 1]
    if bad:
        raise ConfigError(f"pass@k k = {bad[0]!r} is invalid; every k must be an integer >= 1")
    chosen = tuple(sorted({k for k in ks if k <= samples}))
    if not chosen:
        raise ConfigError(
            f"pass@k ks = {list(ks)} all exceed samples = {samples}; draw at least min(ks) samples per task"
        )
    return chosen


def build_report(
    suite: str, tasks: Sequence[Task], tallies: Sequence[tuple[int, int]], ks: Sequence[int]
) -> EvalReport:
    """Average the per-task estimates overall and over the tasks carrying each tag."""
    if len(tasks) != len(tallies):
        raise ValueError(f"{len(tasks)} tasks but {len(tallies)} tallies")  # our bug, not the user's
    samples = min((n for n, _ in tallies), default=0)
    chosen = usable_ks(ks, samples) if tasks else tuple(sorted(set(ks)))
    estimates = [{k: pass_at_k(n, c, k) for k in chosen} for n, c in tallies]
    by_tag: dict[str, list[dict[int, float]]] = {}
    for task, row in zip(tasks, estimates):
        for tag in dict.fromkeys(task.tags):
            by_tag.setdefault(tag, []).append(row)
    return EvalReport(
        suite=suite,
        n_tasks=len(tasks),
        samples=samples,
        pass_at_k=_mean_rows(estimates, chosen),
        per_tag={tag: _mean_rows(rows, chosen) for tag, rows in sorted(by_tag.items())},
        per_task=tuple((t.task_id, n, c) for t, (n, c) in zip(tasks, tallies)),
    )


def _mean_rows(rows: Sequence[dict[int, float]], ks: Sequence[int]) -> dict[int, float]:
    if not rows:
        return {k: 0.0 for k in ks}
    return {k: sum(r[k] for r in rows) / len(rows) for k in ks}
