"""The in-distribution held-out suites, one per task kind: fresh instances of the kind's procedural families, split
into 'dev' and 'test' ('heldout' is the Python function kind's; 'heldout-<kind>' another kind's, spade.evaluate.suites).

Drafts come from the held-out seed (spade.generate.procedural.HELDOUT_SEED), which training cannot draw; they are
validated like any generated task (defaults of GenerationConfig, so every run sees the same suite) and
deduplicated among themselves with the loop's own index, so no two held-out tasks, and no dev and test task, are
the same problem. A family makes only a handful of distinct problems (its menu's operations: ~8 each, ~200 in all),
so the Python function suite also holds composed variants of them, as the loop makes once a family's plain draws
turn out duplicates (generation.compose_on_duplicate; a third of a 45-minute run's tasks): COMPOSED_PER_FAMILY per
family, drawn with the held-out seed, validated, and kept only when the composed step changes the seed's answer.
A task's split is a hash of its id: 'test' (~60%, the figures reported) or 'dev' (the eval gate's); a composed
task goes where its seed went, so no dev and test task share a seed problem. Built once in the sandbox and cached
under the user's cache dir, keyed by the generator's sources.
Out: tasks 'heldout/<family>-<hash>' (composed: 'heldout/<family>-<hash>~v<hash>'). Tasks a run trained on are removed when evaluating it (`drop_trained`).
A kind's suite needs nothing but its registered families: drafts are validated by the kind (spade.kinds).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from spade.records import PYTHON_FUNCTION, Task

SPLITS = ("dev", "test")
HELDOUT_VERSION = 2  # bump when the recipe below changes (2: composed variants)
DRAFTS_PER_FAMILY = 200  # enough draws to reach nearly every distinct problem a family makes (measured)
COMPOSED_PER_FAMILY = 16
"""Composed variants per family in the Python function suite (at most: a family whose drafts fail validation or
duplicate gets fewer), about twice its plain problems, so that a trained arm's test split keeps several hundred
tasks after losing its own (one task well under 1 point)."""
COMPOSE_DRAFTS = 2  # composed drafts made per variant wanted: some fail validation, change nothing or duplicate
KIND_DRAFTS_PER_FAMILY = 40
"""Drafts per family for the other kinds' suites (each test of theirs is a sandbox job of its own, so their suites
cost more to build); a kind may set its own with a `heldout_draws` attribute."""
TEST_SHARE = 0.6
_SOURCES = ("generate", "validate", "dedup")  # packages whose code decides which tasks the suite holds


def split_of(task_id: str) -> str:
    """'test' or 'dev', fixed by the id alone: a composed variant's ('<seed id>~v<hash>') is its seed's."""
    seed_id = task_id.split("~", 1)[0]
    digest = int.from_bytes(hashlib.sha256(f"heldout-split|{seed_id}".encode()).digest()[:8], "little")
    return "test" if digest / 2**64 < TEST_SHARE else "dev"


def load_heldout(split: str, pool: Any = None, kind: str = PYTHON_FUNCTION) -> list[Task]:
    """The tasks of one split of `kind`'s suite, from the cache or built now (in `pool`, or a pool of its own)."""
    if split not in SPLITS:
        raise ValueError(f"held-out split {split!r} is not one of {SPLITS}")  # our bug: suites name the split
    return [t for t in _all_tasks(pool, kind) if t.provenance.get("split") == split]


def kind_families(kind: str) -> list[str]:
    """The registered families whose tasks are of `kind`."""
    from spade.generate.registry import family_names, get_family

    return [name for name in family_names() if get_family(name).kind == kind]


def draws_for(kind: str) -> int:
    if kind == PYTHON_FUNCTION:
        return DRAFTS_PER_FAMILY
    from spade.kinds import KINDS

    return int(getattr(KINDS.get(kind), "heldout_draws", KIND_DRAFTS_PER_FAMILY))


def drop_trained(tasks: Sequence[Task], trained: Iterable[Any], threshold: float) -> tuple[list[Task], int]:
    """(tasks that duplicate nothing in `trained`, how many were dropped): a run's own tasks are not held out."""
    from spade.dedup import DedupIndex

    index = DedupIndex.from_tasks(trained, threshold=threshold)
    kept = [t for t in tasks if not index.check(t).duplicate]
    return kept, len(tasks) - len(kept)


def build(pool: Any, families: Sequence[str] = (), draws: int = DRAFTS_PER_FAMILY,
          kind: str = PYTHON_FUNCTION, composed: int = COMPOSED_PER_FAMILY) -> list[Task]:
    """Draft, deduplicate and validate the whole suite (both splits), deterministically: `draws` drafts of each
    family (all of `kind`'s unless named) and, for Python functions, up to `composed` composed variants of each
    family's tasks; in hash order."""
    from spade.config import GenerationConfig
    from spade.dedup import DedupIndex
    from spade.generate.procedural import heldout_draft
    from spade.kinds import validate_drafts

    gen = GenerationConfig()
    index = DedupIndex(gen.dedup_threshold)
    drafts = []
    for family in families or kind_families(kind):
        for i in range(draws):
            difficulty = round(random.Random(f"heldout-difficulty|{family}|{i}").random(), 2)
            draft = heldout_draft(family, difficulty, i, gen.public_tests, gen.hidden_tests)
            if not index.check(draft).duplicate:  # validation keeps description and reference: same verdict after
                index.add(draft)
                drafts.append(draft)
    tasks: list[Task] = []
    for outcome in validate_drafts(drafts, pool, gen):
        if outcome.accepted and outcome.task is not None:
            task_id = f"heldout/{outcome.task.task_id}"
            tasks.append(replace(outcome.task, task_id=task_id, tags=(*outcome.task.tags, "heldout"),
                                 provenance={**outcome.task.provenance, "source": "heldout", "split": split_of(task_id)}))
    if composed and kind == PYTHON_FUNCTION:
        tasks += _composed(pool, tasks, index, composed)
    # In hash order, not family order: the first N tasks (eval.limit) are a spread over families and difficulties.
    return sorted(tasks, key=lambda t: hashlib.sha256(t.task_id.encode()).hexdigest())


def _composed(pool: Any, seeds: Sequence[Task], index: Any, per_family: int) -> list[Task]:
    """Up to `per_family` composed variants of each family's validated tasks (`seeds`), as the loop composes a
    duplicate (spade.supply.supply): seed_variant with compose, the held-out seed, validation, and the rule that
    the step must change the seed's answer; then deduplicated against everything already in `index`. The seeds of
    a family take turns, so its variants spread over its problems."""
    from spade.config import GenerationConfig
    from spade.generate.procedural import HELDOUT_SEED
    from spade.generate.variants import seed_variant
    from spade.kinds import validate_drafts
    from spade.validate.effect import require_effect

    gen = GenerationConfig()
    by_family: dict[str, list[Task]] = {}
    for task in sorted(seeds, key=lambda t: t.task_id):
        by_family.setdefault(task.family or "", []).append(task)
    drafts: list[Any] = []
    family_of: dict[str, str] = {}
    seed_of = {t.task_id: t for t in seeds}
    for family, members in sorted(by_family.items()):
        for k in range(per_family * COMPOSE_DRAFTS):
            seed = members[k % len(members)]
            draft = seed_variant(seed, HELDOUT_SEED, 1 + k // len(members), gen.public_tests, gen.hidden_tests,
                                 compose=True)
            if "composed" in draft.tags:  # a seed no transform fits gets a plain variant: a renamed duplicate
                drafts.append(draft)
                family_of[draft.task_id] = family
    outcomes = require_effect(validate_drafts(drafts, pool, gen), seed_of, pool, gen)
    kept: list[Task] = []
    count: dict[str, int] = {}
    for outcome in outcomes:
        family = family_of[outcome.task_id]
        if not outcome.accepted or outcome.task is None or count.get(family, 0) >= per_family:
            continue
        if index.check(outcome.task).duplicate:
            continue
        index.add(outcome.task)
        count[family] = count.get(family, 0) + 1
        task = outcome.task
        tags = task.tags if "heldout" in task.tags else (*task.tags, "heldout")  # the seed's tags carry it
        kept.append(replace(task, family=family, tags=tags,
                            provenance={**task.provenance, "source": "heldout", "split": split_of(task.task_id)}))
    return kept


def cache_path(kind: str = PYTHON_FUNCTION) -> Path:
    """Keyed by the recipe version and the sources of everything that shapes the suite (for another kind, its
    folder in spade/kinds too)."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256(str(HELDOUT_VERSION).encode() + Path(__file__).read_bytes())
    packages = _SOURCES if kind == PYTHON_FUNCTION else (*_SOURCES, f"kinds/{kind}")
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "spade"
    name = "heldout" if kind == PYTHON_FUNCTION else f"heldout-{kind}"
    return base / f"{name}-{digest.hexdigest()[:16]}.jsonl"


def _all_tasks(pool: Any, kind: str = PYTHON_FUNCTION) -> list[Task]:
    from spade.taskio import load_tasks, task_to_dict

    cached = cache_path(kind)
    if cached.is_file():
        return load_tasks(cached)
    if pool is None:
        from spade.config import ExecutorConfig
        from spade.sandbox import SandboxPool

        with SandboxPool(ExecutorConfig()) as own_pool:
            tasks = build(own_pool, draws=draws_for(kind), kind=kind)
    else:
        tasks = build(pool, draws=draws_for(kind), kind=kind)
    cached.parent.mkdir(parents=True, exist_ok=True)
    tmp = cached.with_name(f".{cached.name}.{os.getpid()}.tmp")
    tmp.write_text("".join(json.dumps(task_to_dict(t), ensure_ascii=False) + "\n" for t in tasks), encoding="utf-8")
    tmp.replace(cached)  # atomic: a crash mid-write never leaves a truncated cache
    return tasks
