"""Repair families: a Python function family's variant with bugs injected into its reference.

In: a difficulty and a Random. Out: a Variant of kind "repair" whose description, signature, entry point and
reference are a drawn Python function family's own, and whose knobs carry that family's knobs (to draw inputs
with) and a few candidate bugs. Validation (spade.kinds.repair.validation) runs the reference for the expected
values and the candidates for their failures, and keeps the candidate whose share of failed tests is nearest
`target_fail_share`. Difficulty sets the base task's difficulty, the number of bugs, how subtle the kept bug
is (failed by nearly every test at 0, by few at 1) and, below SHOW_LINES_BELOW, that the prompt names the bug lines.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Collection, Mapping
from typing import Any

from spade.generate.family import Family, Variant
from spade.generate.registry import get_family, register, resolve_families
from spade.kinds.repair.bugs import (
    BRANCH,
    BUILTIN,
    COMPARISON,
    CONSTANT,
    LOGIC,
    OPERATOR,
    SLICE,
    Bug,
    bugs,
)
from spade.kinds.repair.name import REPAIR

CANDIDATES = 8  # bugs drafted per task; validation keeps one
ATTEMPTS = 8  # base variants tried before any kind of bug is allowed
SHOW_LINES_BELOW = 0.25  # the easiest repairs say which lines hold the bugs


class RepairFamily(Family):
    """Bugs of `kinds` (None: any) injected into a drawn Python function family's reference."""

    kind = REPAIR

    def __init__(self, name: str, tags: tuple[str, ...], kinds: frozenset[str] | None,
                 bug_count: Callable[[float], int]) -> None:
        self.name = name
        self.tags = (REPAIR, *tags)
        self.kinds = kinds
        self.bug_count = bug_count
        self.withheld: frozenset[str] = frozenset()  # base families this copy never draws (`without`)

    def without(self, withheld: Collection[str]) -> RepairFamily | None:
        """Injecting bugs only into families not withheld: a withheld family's reference shown as buggy code to fix
        would teach the very family the run is evaluated on as unseen."""
        if self.name in withheld or not resolve_families([], withhold=withheld):
            return None
        if not set(withheld) & {f.name for f in resolve_families([])}:
            return self
        narrowed = copy.copy(self)
        narrowed.withheld = frozenset(withheld)
        return narrowed

    def variant(self, difficulty: float, rng: random.Random) -> Variant:
        bases = sorted(f.name for f in resolve_families([], withhold=self.withheld))
        count = self.bug_count(difficulty)
        for attempt in range(2 * ATTEMPTS):
            base = get_family(rng.choice(bases))
            v = base.variant(difficulty, rng)
            # After ATTEMPTS bases with no bug of the family's kinds, any kind will do, then fewer bugs.
            kinds = self.kinds if attempt < ATTEMPTS else None
            n = count if attempt < ATTEMPTS + ATTEMPTS // 2 else 1
            found = bugs(v.reference, n, kinds, rng, CANDIDATES)
            if found:
                return _variant(base.name, v, found, n, difficulty)
        raise RuntimeError(f"family {self.name}: no base variant with a mutable reference in {2 * ATTEMPTS} draws")

    def random_input(self, knobs: Mapping[str, Any], rng: random.Random) -> list[Any]:
        return get_family(knobs["base_family"]).random_input(knobs["base"], rng)

    def edge_inputs(self, knobs: Mapping[str, Any]) -> list[list[Any]]:
        return get_family(knobs["base_family"]).edge_inputs(knobs["base"])


def _variant(base: str, v: Variant, found: list[Bug], count: int, difficulty: float) -> Variant:
    # `op` names what is asked, as a menu family's knob does: the base family's op with this many bugs in it.
    knobs = {"op": f"{base}.{v.knobs.get('op', '')}+{count}bug", "base_family": base, "base": dict(v.knobs),
             "bugs": count, "target_fail_share": round(1.0 - 0.7 * difficulty, 4),
             "show_bug_lines": difficulty < SHOW_LINES_BELOW, "candidates": [b.to_json() for b in found]}
    return Variant(v.description, v.signature, v.entry_point, v.reference, knobs)


def _one_then_two(d: float) -> int:
    return 1 if d < 0.7 else 2


def _two_then_three(d: float) -> int:
    return 2 if d < 0.6 else 3


register(RepairFamily("repair_operator", ("operator",), frozenset({OPERATOR, LOGIC, BUILTIN}), _one_then_two))
register(RepairFamily("repair_boundary", ("boundary",), frozenset({COMPARISON, CONSTANT, SLICE}), _one_then_two))
register(RepairFamily("repair_branch", ("branch",), frozenset({BRANCH}), _one_then_two))
register(RepairFamily("repair_multi", ("multi_bug",), None, _two_then_three))
