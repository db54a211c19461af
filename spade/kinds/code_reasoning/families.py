"""Cold-start code-reasoning families: tasks derived from Python function families, so the kind works without the
proposer (and serves as the procedural arm of a self-play comparison).

Each family draws one Python function family (of SOURCES) by its rng, takes that family's variant at the same
difficulty (its reference is the program, its inputs the candidate queries) and marks the mode: cr_deduction,
cr_abduction, cr_induction. Knobs hold the source family's name and knobs, so more inputs can be drawn later. The
expected outputs come from running the program in the sandbox (validate.py), never from here.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Collection, Mapping
from typing import Any

from spade.generate.family import Family, Variant
from spade.generate.registry import get_family, register
from spade.kinds.code_reasoning.prompt import ABDUCTION, DEDUCTION, INDUCTION

KIND = "code_reasoning"
SOURCES = ("list_aggregate", "digits", "string_count", "gcd_lcm", "list_transform", "fizzbuzz", "palindrome",
           "string_transform", "rotate_list", "run_length")
"""Python function families whose programs are short and whose values are small enough to show."""


class DerivedFamily(Family):
    """A code-reasoning mode over a program drawn from a Python function family."""

    kind = KIND
    mode: str
    sources: tuple[str, ...] = SOURCES

    def variant(self, difficulty: float, rng: random.Random) -> Variant:
        source = get_family(rng.choice(self.sources))
        inner = source.variant(difficulty, rng)
        description = inner.description if self.mode == INDUCTION else f"{self.mode.capitalize()} over {source.name}."
        return Variant(description, inner.signature, inner.entry_point, inner.reference,
                       {"mode": self.mode, "source": source.name, "source_knobs": inner.knobs})

    def without(self, withheld: Collection[str]) -> DerivedFamily | None:
        """Drawing only programs of source families not withheld: a withheld family's program shown (deduction,
        abduction) or asked for (induction) would teach the very family the run is evaluated on as unseen."""
        kept = tuple(s for s in self.sources if s not in withheld)
        if self.name in withheld or not kept:
            return None
        if kept == self.sources:
            return self
        narrowed = copy.copy(self)
        narrowed.sources = kept
        return narrowed

    def random_input(self, knobs: Mapping[str, Any], rng: random.Random) -> list[Any]:
        return get_family(knobs["source"]).random_input(knobs["source_knobs"], rng)

    def edge_inputs(self, knobs: Mapping[str, Any]) -> list[list[Any]]:
        return get_family(knobs["source"]).edge_inputs(knobs["source_knobs"])


class Deduction(DerivedFamily):
    """Predict what the program returns for a shown input."""

    name, tags, mode = "cr_deduction", ("code_reasoning", DEDUCTION), DEDUCTION


class Abduction(DerivedFamily):
    """Give an input for which the program returns a shown output."""

    name, tags, mode = "cr_abduction", ("code_reasoning", ABDUCTION), ABDUCTION


class Induction(DerivedFamily):
    """Write the program from a short description and input/output pairs; judged on hidden pairs."""

    name, tags, mode = "cr_induction", ("code_reasoning", INDUCTION), INDUCTION


for _family in (Deduction(), Abduction(), Induction()):
    register(_family)
