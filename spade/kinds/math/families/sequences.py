"""Sequences: the next term, the n-th term as a formula in n, or the sum of the first N terms.

Difficulty moves from arithmetic sequences (next term) to geometric ones (from 0.35) and quadratic ones (second
differences constant, from 0.65), and from "the next term" to "the n-th term" (from 0.25) and "the sum of the first N
terms" (from 0.5). Formulas are judged by equivalence (any correct formula passes); numbers must be exact.
"""

from __future__ import annotations

import random
from fractions import Fraction

from spade.generate.family import Variant
from spade.generate.registry import register
from spade.kinds.math.families.base import MathFamily, nonzero, span, variant

SHOWN = 5


class Sequence(MathFamily):
    name = "math_sequence"
    tags = ("math", "sequences")

    def variant(self, difficulty: float, rng: random.Random) -> Variant:
        kinds = ["arithmetic"] + (["geometric"] if difficulty >= 0.35 else []) + \
                (["quadratic"] if difficulty >= 0.65 else [])
        asks = ["next"] + (["nth"] if difficulty >= 0.25 else []) + (["sum"] if difficulty >= 0.5 else [])
        knobs = {"sequence": rng.choice(kinds[-2:]), "ask": rng.choice(asks[-2:]), "size": span(difficulty, 5, 15),
                 "count": span(difficulty, 6, 30)}
        term, formula = _sequence(knobs, rng)
        shown = ", ".join(str(term(n)) for n in range(1, SHOWN + 1))
        start = f"The sequence {shown}, ... continues by the same rule (its first term is term 1)."
        if knobs["ask"] == "next":
            return variant(f"{start} What is term {SHOWN + 1}?", "number", str(term(SHOWN + 1)), knobs)
        if knobs["ask"] == "nth":
            return variant(f"{start} Give a formula for term n.", "expression in n", formula, knobs)
        count = knobs["count"]
        total = sum(Fraction(term(n)) for n in range(1, count + 1))
        return variant(f"{start} What is the sum of its first {count} terms?", "number", str(total), knobs)


def _sequence(knobs: dict, rng: random.Random):
    """The n-th term as a function and as a formula in n (the grammar's syntax)."""
    size = knobs["size"]
    if knobs["sequence"] == "arithmetic":
        a, d = rng.randint(-size, size), nonzero(rng, -size // 2 - 1, size // 2 + 1)
        return (lambda n: a + (n - 1) * d), f"{a} + (n - 1)*({d})"
    if knobs["sequence"] == "geometric":
        a, r = nonzero(rng, -size // 2 - 1, size // 2 + 1), rng.choice([-3, -2, 2, 3, 4])
        if knobs["ask"] == "sum":
            knobs["count"] = min(knobs["count"], 12)
        return (lambda n: a * r ** (n - 1)), f"({a})*({r})^(n - 1)"
    a, b, c = nonzero(rng, -3, 3), rng.randint(-size, size), rng.randint(-size, size)
    return (lambda n: a * n * n + b * n + c), f"({a})*n^2 + ({b})*n + ({c})"


FAMILY = register(Sequence())
