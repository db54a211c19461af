"""The contract of a procedural task family.

A family maps (difficulty in [0, 1], its own `random.Random`) to a `Variant`: the wording, the typed
signature, the reference solution and the knobs that made them. It also draws argument lists for a
variant's knobs, random ones and edge cases. Argument lists hold plain JSON values only.
"""

from __future__ import annotations

import json
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from spade.records import PYTHON_FUNCTION


@dataclass(frozen=True, slots=True)
class Variant:
    """One concrete task shape. `knobs` must be JSON and must be enough to draw more inputs later."""

    description: str
    signature: str
    entry_point: str
    reference: str
    knobs: dict[str, Any]


class Family(ABC):
    """A task family: a name, tags, a variant maker and input generators keyed by the variant's knobs."""

    name: str
    tags: tuple[str, ...]
    kind: str = PYTHON_FUNCTION  # the task kind its drafts become (spade.kinds); a Variant's fields mean what it says

    @abstractmethod
    def variant(self, difficulty: float, rng: random.Random) -> Variant:
        """The task shape for this difficulty; all randomness comes from `rng`."""

    @abstractmethod
    def random_input(self, knobs: Mapping[str, Any], rng: random.Random) -> list[Any]:
        """One positional argument list drawn at random for a variant with these knobs."""

    @abstractmethod
    def edge_inputs(self, knobs: Mapping[str, Any]) -> list[list[Any]]:
        """Argument lists at the boundaries (empty, single, extremes) for a variant with these knobs."""

    def without(self, withheld: Collection[str]) -> Family | None:
        """The family as a run that withholds `withheld` (generation.withhold_families) may draw it: None when it is
        withheld itself. A family whose tasks derive from other families' (code reasoning, repair) returns a copy
        that draws only from the families not withheld, or None when none is left."""
        return None if self.name in withheld else self

    def more_inputs(self, knobs: Mapping[str, Any], salt: str, count: int,
                    seen: Sequence[Sequence[Any]]) -> list[list[Any]]:
        """Extra argument lists for a drafted variant (validation asks when its tests were too weak): edge cases
        the first draw left out first, then fresh random ones; a pure function of (family, knobs, salt)."""
        rng = random.Random(f"spade-more|{self.name}|{salt}")
        seen_keys = {input_key(a) for a in seen}
        # Edge cases the first draw left out come first: they are what usually tells mutants apart.
        edges = unique_inputs([e for e in self.edge_inputs(knobs) if input_key(e) not in seen_keys])[:count]
        return edges + fresh_inputs(lambda: self.random_input(knobs, rng), count - len(edges),
                                    [list(a) for a in seen] + edges)


def fresh_inputs(draw: Callable[[], list[Any]], count: int, seen: list[list[Any]]) -> list[list[Any]]:
    """Up to `count` argument lists from `draw` that are not in `seen` nor repeated."""
    # Small input spaces can run out of distinct values; give up after a bounded number of draws.
    keys = {input_key(s) for s in seen}
    out: list[list[Any]] = []
    for _ in range(count * 20):
        if len(out) >= count:
            break
        args = draw()
        if input_key(args) not in keys:
            keys.add(input_key(args))
            out.append(args)
    return out


def unique_inputs(items: list[list[Any]]) -> list[list[Any]]:
    """`items` without repeats, in order."""
    seen: set[str] = set()
    out = []
    for item in items:
        if input_key(item) not in seen:
            seen.add(input_key(item))
            out.append(item)
    return out


def input_key(args: Sequence[Any]) -> str:
    return json.dumps(list(args), sort_keys=True)
