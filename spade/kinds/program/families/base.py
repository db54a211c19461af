"""What every program family shares: the kind, the signature line, and choosing among a menu of operations by
difficulty (the harder the level, the harder the operations in reach)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

from spade.generate.family import Family

PROGRAM = "program"
SIGNATURE = "program: stdin -> stdout"

T = TypeVar("T")


class ProgramFamily(Family):
    kind = PROGRAM


def pick_level(levels: Sequence[tuple[float, T]], difficulty: float, rng: random.Random) -> T:
    """One of the (at most two) hardest items whose level is at or below `difficulty`."""
    within = [item for level, item in levels if level <= difficulty + 1e-9] or [levels[0][1]]
    return rng.choice(within[-2:])


def lines(*rows: object) -> str:
    """Rows of stdin text, each ending with a newline."""
    return "".join(f"{row}\n" for row in rows)
