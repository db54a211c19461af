"""Seed tasks from a user's file (generation.seeds) as a source of the loop's supply (docs/method.md#seed-variants-and-composition).

In: a .json/.jsonl task file in SPADE's task schema, each task with a reference solution. Out: the seed tasks,
checked once (every seed has a reference that parses: variants are rewritten from it) and kept per file version;
`seed_drafts` draws an iteration's variant drafts from them (renamed, fresh inputs, some composed with another
family's step), which the supply validates like any draft, and admits under the 'external' controller group.
`spade variants` uses the same check.
"""

from __future__ import annotations

import random
from collections.abc import Collection
from functools import lru_cache
from pathlib import Path

from spade.errors import TaskFormatError
from spade.generate.procedural import TaskDraft
from spade.generate.variants import seed_variant
from spade.pycode import parse_untrusted
from spade.records import Task
from spade.taskio import load_tasks


def check_seeds(seeds: list[Task], path: str | Path) -> list[Task]:
    """Seeds as given, or a one-line TaskFormatError naming the first that cannot make variants."""
    missing = [t.task_id for t in seeds if not t.reference_solution]
    if missing:
        raise TaskFormatError(f"{path}: task {missing[0]} has no reference_solution; variants need one")
    for t in seeds:  # variants rewrite the reference's syntax tree: it must parse, and stay walkable
        try:
            parse_untrusted(t.reference_solution or "")
        except SyntaxError as exc:
            raise TaskFormatError(f"{path}: task {t.task_id}: field 'reference_solution' does not parse "
                                  f"({exc.msg}); fix the seed's reference, variants are rewritten from it") from None
    return seeds


def load_seeds(path: str | Path) -> tuple[Task, ...]:
    """The checked seed tasks of `path`, read again only when the file changes."""
    p = Path(path)
    try:
        stamp = p.stat().st_mtime_ns
    except OSError:
        raise TaskFormatError(f"generation.seeds = {p}: the file does not exist; give a .json/.jsonl task file") from None
    return _load(str(p), stamp)


@lru_cache(maxsize=4)
def _load(path: str, _stamp: int) -> tuple[Task, ...]:
    seeds = check_seeds(load_tasks(path), path)
    if not seeds:
        raise TaskFormatError(f"generation.seeds = {path}: the file holds no task; give at least one seed task")
    return tuple(seeds)


def seed_drafts(seeds: tuple[Task, ...], count: int, rng: random.Random, run_seed: int, first_index: int,
                n_public: int, n_hidden: int, compose_share: float, withhold: Collection[str] = ()) -> list[TaskDraft]:
    """`count` variant drafts of seeds drawn by `rng`: each composed with probability compose_share (a composed
    one must still change its seed's answer: spade.validate.effect), indices from first_index on."""
    drafts = []
    for k in range(count):
        seed = rng.choice(seeds)
        compose = rng.random() < compose_share
        drafts.append(seed_variant(seed, run_seed, first_index + k, n_public, n_hidden, compose=compose,
                                   withhold=withhold))
    return drafts
