"""The contract of a procedural task family.

A family maps (difficulty in [0, 1], its own `random.Random`) to a `Variant`: the wording, the typed
signature, the reference solution and the knobs that made them. It also draws argument lists for a
variant's knobs, random ones and edge cases. Argument lists hold plain JSON values only.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


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

    @abstractmethod
    def variant(self, difficulty: float, rng: random.Random) -> Variant:
        """The task shape for this difficulty; all randomness comes from `rng`."""

    @abstractmethod
    def random_input(self, knobs: Mapping[str, Any], rng: random.Random) -> list[Any]:
        """One positional argument list drawn at random for a variant with these knobs."""

    @abstractmethod
    def edge_inputs(self, knobs: Mapping[str, Any]) -> list[list[Any]]:
        """Argument lists at the boundaries (empty, single, extremes) for a variant with these knobs."""
