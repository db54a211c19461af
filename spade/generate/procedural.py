"""Draft tasks from procedural families: a pure function of (family, difficulty, seed, index).

Out: `TaskDraft`s, which are Tasks whose tests are argument lists only; the expected values come later,
from running the reference in the sandbox (spade.validate.dynamic). Each draft uses its own Random.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Mapping, Sequence
from typing import Any

from spade.generate.family import Family, fresh_inputs, input_key, unique_inputs
from spade.generate.registry import get_family
from spade.records import TaskDraft

# The held-out evaluation suite draws from negative seeds; training draws only seeds >= 0 (run.seed is >= 0 and
# draft_task refuses the rest), so no held-out instance can be drawn by a run, whatever its seed.
HELDOUT_SEED = -1


def draft_task(family: Family | str, difficulty: float, seed: int, index: int, n_public: int, n_hidden: int) -> TaskDraft:
    """One draft. Same arguments, same draft: every random choice comes from a Random seeded by them.
    Negative seeds are the held-out suite's (`heldout_draft`) and are refused here."""
    if seed < 0 or index < 0:
        raise ValueError(f"seed {seed} / index {index}: negative values are reserved for the held-out suite")
    return _draft(family, difficulty, seed, index, n_public, n_hidden)


def heldout_draft(family: Family | str, difficulty: float, index: int, n_public: int, n_hidden: int) -> TaskDraft:
    """A draft of the held-out evaluation suite: the seed is HELDOUT_SEED, which training can never draw."""
    if index < 0:
        raise ValueError(f"held-out index {index} must be >= 0")
    return _draft(family, difficulty, HELDOUT_SEED, index, n_public, n_hidden)


def _draft(family: Family | str, difficulty: float, seed: int, index: int, n_public: int, n_hidden: int) -> TaskDraft:
    fam = get_family(family) if isinstance(family, str) else family
    d = round(min(max(float(difficulty), 0.0), 1.0), 4)
    rng = random.Random(f"spade|{fam.name}|{d}|{seed}|{index}")
    variant = fam.variant(d, rng)
    public, hidden = _draw_inputs(fam, variant.knobs, rng, n_public, n_hidden)
    content = json.dumps([fam.name, variant.description, variant.signature, variant.reference, public, hidden])
    return TaskDraft(
        task_id=f"{fam.name}-{hashlib.sha256(content.encode()).hexdigest()[:12]}",
        description=variant.description,
        signature=variant.signature,
        entry_point=variant.entry_point,
        difficulty=d,
        tags=fam.tags,
        public_inputs=tuple(tuple(a) for a in public),
        hidden_inputs=tuple(tuple(a) for a in hidden),
        reference_solution=variant.reference,
        family=fam.name,
        params=dict(variant.knobs),
        provenance={"source": "procedural", "family": fam.name, "seed": seed, "index": index},
        kind=fam.kind,
    )


def draft_tasks(
    families: Sequence[Family | str],
    difficulty_by_family: Mapping[str, float] | float,
    seed: int,
    start_index: int,
    count: int,
    n_public: int,
    n_hidden: int,
) -> list[TaskDraft]:
    """`count` drafts for indices start_index…; the family of each index is drawn from `families`."""
    fams = sorted((get_family(f) if isinstance(f, str) else f for f in families), key=lambda f: f.name)
    if not fams:
        raise ValueError("draft_tasks needs at least one family")
    drafts = []
    for index in range(start_index, start_index + count):
        fam = fams[random.Random(f"spade-pick|{seed}|{index}").randrange(len(fams))]
        if isinstance(difficulty_by_family, Mapping):
            difficulty = difficulty_by_family.get(fam.name, 0.0)
        else:
            difficulty = difficulty_by_family
        drafts.append(draft_task(fam, difficulty, seed, index, n_public, n_hidden))
    return drafts


def more_inputs(draft_family: str, knobs: Mapping[str, Any], salt: str, count: int, seen: Sequence[Sequence[Any]]) -> list[list[Any]]:
    """Extra random argument lists for a drafted variant (asked for when its tests were too weak)."""
    return get_family(draft_family).more_inputs(knobs, salt, count, seen)


def _draw_inputs(fam: Family, knobs: Mapping[str, Any], rng: random.Random, n_public: int, n_hidden: int) -> tuple[list[list[Any]], list[list[Any]]]:
    # Public tests show typical random cases; edge cases go to the hidden tests, where they catch
    # solutions fitted to what the policy was shown.
    public = fresh_inputs(lambda: fam.random_input(knobs, rng), n_public, [])
    edges = unique_inputs([e for e in fam.edge_inputs(knobs) if input_key(e) not in {input_key(p) for p in public}])
    hidden = edges[: max(n_hidden // 2, 1)] if edges else []
    hidden += fresh_inputs(lambda: fam.random_input(knobs, rng), n_hidden - len(hidden), public + hidden)
    return public, hidden
