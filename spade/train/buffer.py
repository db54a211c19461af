"""The training buffer: which verified samples a policy update learns from (expert iteration's data step).

In: `Sample`s, the loop's rollouts of one or more iterations (task, completion, extracted code, passed or not),
newest first. Out: the passing samples an update trains on, deduplicated per task by their normalised code.
With the learning-zone filter on, only tasks the policy solves sometimes (0 < pass rate < 1 over the rollouts
given, as AZR and DeepCoder filter) contribute: tasks it always solves teach nothing new, and tasks it never
solves have no passing sample anyway. `per_task` caps what any one task contributes, so a handful of easy tasks
with many distinct passing samples cannot fill the buffer, and `family_share` caps what any one task family
contributes (the policy's own proposals are one family).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from spade.config import TrainingConfig
from spade.dedup.normalize import canonical_code
from spade.records import Rollout


@dataclass(frozen=True, slots=True)
class Sample:
    """One rollout as the buffer sees it."""

    task_id: str
    completion: str
    code: str
    passed: bool
    prompt_variant: int = 0


def pass_rates(samples: Iterable[Sample]) -> dict[str, float]:
    """Per task, the share of its samples that passed."""
    tallies: dict[str, list[int]] = {}
    for s in samples:
        t = tallies.setdefault(s.task_id, [0, 0])
        t[0] += s.passed
        t[1] += 1
    return {task: passed / n for task, (passed, n) in tallies.items()}


def in_learning_zone(rate: float) -> bool:
    return 0.0 < rate < 1.0


def select(samples: Sequence[Sample], *, limit: int, learning_zone: bool = False, per_task: int = 0,
           rates: Mapping[str, float] | None = None) -> list[Sample]:
    """The passing samples to train on, in the order given (newest first), at most `limit`: one per distinct
    normalised code per task, at most `per_task` per task (0: no cap), and with `learning_zone` only from tasks
    whose pass rate (`rates`, else over `samples`) is strictly between 0 and 1."""
    rates = pass_rates(samples) if rates is None else rates
    seen: set[tuple[str, str]] = set()
    taken: dict[str, int] = {}
    out: list[Sample] = []
    for s in samples:
        if len(out) >= limit:
            break
        if not s.passed or (learning_zone and not in_learning_zone(rates[s.task_id])):
            continue
        if per_task and taken.get(s.task_id, 0) >= per_task:
            continue
        key = (s.task_id, _code_key(s.code or s.completion))
        if key in seen:
            continue
        seen.add(key)
        taken[s.task_id] = taken.get(s.task_id, 0) + 1
        out.append(s)
    return out


def cap_families(samples: Sequence[Sample], family_of: Callable[[str], str], cap: int) -> list[Sample]:
    """`samples` in order, keeping at most `cap` of each task family (`family_of` a task id)."""
    taken: dict[str, int] = {}
    out: list[Sample] = []
    for s in samples:
        family = family_of(s.task_id)
        if taken.get(family, 0) < cap:
            taken[family] = taken.get(family, 0) + 1
            out.append(s)
    return out


def _code_key(code: str) -> str:
    try:  # names renamed, comments and docstrings gone
        text = canonical_code(code)
    except (ValueError, RecursionError):  # null bytes, nesting too deep for ast: compared as written
        text = code.strip()
    return hashlib.sha256(text.encode()).hexdigest()


OLDER_ROLLOUTS = 20_000  # the newest earlier rollouts read per update (their pass rates and passing samples)


def rft_buffer(rollouts: Sequence[Rollout], store: Any, training: TrainingConfig, replay_ratio: float,
               rationales: Sequence[Sample] = (), family_of: Callable[[str], str] | None = None
               ) -> tuple[list[Sample], dict[str, int]]:
    """An RFT update's buffer: this iteration's rollouts first, then its `rationales` (spade.train.rationalize:
    passing hinted answers of tasks it never solved, outside the learning-zone filter, since their pass rate is 0
    by construction), then the run's earlier rollouts from `store` (newest first), which keep at least the replay
    share of training.max_examples when they have it. Pass rates for the learning zone count every rollout of a
    task, this iteration's and earlier. With training.family_share below 1, `family_of` (a task id's family) is
    required and no family has more than that share of max_examples (rounded up), the newest kept."""
    fresh = [Sample(r.task_id, r.candidate.completion, r.candidate.code, r.passed, r.candidate.prompt_variant)
             for r in rollouts]
    older = [Sample(*row) for row in store.rollouts(OLDER_ROLLOUTS)]
    rates = pass_rates([*fresh, *older])
    chosen = select([*fresh, *older], limit=len(fresh) + len(older), learning_zone=training.learning_zone,
                    per_task=training.per_task, rates=rates)
    fresh_ids = {id(s) for s in fresh}
    new = [s for s in chosen if id(s) in fresh_ids]
    new += select(rationales, limit=len(rationales), per_task=training.per_task)
    old = [s for s in chosen if id(s) not in fresh_ids]
    limit = training.max_examples
    capped = 0
    if training.family_share < 1:
        if family_of is None:
            raise ValueError("rft_buffer: training.family_share < 1 needs family_of")
        cap = math.ceil(training.family_share * limit)
        kept = cap_families([*new, *old], family_of, cap)
        capped = len(new) + len(old) - len(kept)
        kept_ids = {id(s) for s in kept}
        new, old = [s for s in new if id(s) in kept_ids], [s for s in old if id(s) in kept_ids]
    n_old = min(len(old), max(round(limit * replay_ratio), limit - len(new)))
    stats = {"fresh": min(len(new), limit - n_old), "replayed": n_old, "rationalized": len(rationales),
             "zone_tasks": sum(in_learning_zone(r) for r in rates.values())}
    if capped:
        stats["family_capped"] = capped
    return new[: limit - n_old] + old[:n_old], stats


def preference_pairs(samples: Sequence[Sample], *, limit: int, per_task: int = 0) -> list[tuple[Sample, Sample]]:
    """(passing, failing) pairs of the same task, for DPO: each task's distinct passing samples matched in order
    with its distinct failing ones, so a sample is in at most one pair; at most `per_task` pairs a task (0: as
    many as the shorter side), `limit` in all, in the order tasks first appear in `samples`."""
    passing: dict[str, list[Sample]] = {}
    failing: dict[str, list[Sample]] = {}
    seen: set[tuple[str, bool, str]] = set()
    for s in samples:
        key = (s.task_id, s.passed, _code_key(s.code or s.completion))
        if key in seen:
            continue
        seen.add(key)
        (passing if s.passed else failing).setdefault(s.task_id, []).append(s)
    pairs: list[tuple[Sample, Sample]] = []
    for task in dict.fromkeys(s.task_id for s in samples):
        matched = list(zip(passing.get(task, []), failing.get(task, [])))
        pairs.extend(matched[:per_task] if per_task else matched)
    return pairs[:limit]


def dpo_buffer(rollouts: Sequence[Rollout], store: Any, training: TrainingConfig,
               tasks: Mapping[str, Any]) -> tuple[list[Any], dict[str, int]]:
    """A DPO update's pairs: (passing, failing) samples of one task from this iteration's rollouts, then the
    run's earlier ones (newest first), at most training.max_examples pairs; `tasks` resolves this iteration's
    task ids, the store the rest."""
    from spade.train.dpo import PreferencePair

    fresh = [Sample(r.task_id, r.candidate.completion, r.candidate.code, r.passed, r.candidate.prompt_variant)
             for r in rollouts]
    older = [Sample(*row) for row in store.rollouts(OLDER_ROLLOUTS)]
    pairs = preference_pairs([*fresh, *older], limit=training.max_examples, per_task=training.per_task)
    out = [PreferencePair(tasks.get(good.task_id) or store.task(good.task_id), good.completion, bad.completion,
                          good.prompt_variant) for good, bad in pairs]
    return out, {"pairs": len(out), "pair_tasks": len({good.task_id for good, _ in pairs})}
