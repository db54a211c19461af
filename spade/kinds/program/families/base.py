"""What every program family shares: the kind, the signature line, choosing among a menu of operations by
difficulty (the harder the level, the harder the operations in reach), and the starter line that easy one-line
tasks have prefilled."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

from spade.generate.family import Family

PROGRAM = "program"
SIGNATURE = "program: stdin -> stdout"

T = TypeVar("T")

# One-line tasks below STARTER_BELOW have their reading line prefilled (params.starter, see prompt.py): reading the
# input is where the embedded 135M model went wrong most (functions called on made-up values, prompt strings in
# stdout). The starter parses the line into named values and leaves what to compute and print to the model.
STARTER_BELOW = 0.3


class ProgramFamily(Family):
    kind = PROGRAM


def pick_level(levels: Sequence[tuple[float, T]], difficulty: float, rng: random.Random) -> T:
    """One of the (at most two) hardest items whose level is at or below `difficulty`."""
    within = [item for level, item in levels if level <= difficulty + 1e-9] or [levels[0][1]]
    return rng.choice(within[-2:])


def lines(*rows: object) -> str:
    """Rows of stdin text, each ending with a newline."""
    return "".join(f"{row}\n" for row in rows)


def starter(difficulty: float, reading: str) -> str:
    """`reading` (lines that read and parse the one-line input) as the prefilled starter below STARTER_BELOW, else ''."""
    return f"{reading}\n" if difficulty < STARTER_BELOW else ""
