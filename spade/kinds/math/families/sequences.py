"""Sequences: the next term, the n-th term as a formula in n, or the sum of the first N terms.

Difficulty moves from counting on (at 0 a step of 1 from a small positive start: "3, 4, 5, 6, 7, ... What is the next
term?"; larger steps up to 8, negative steps and starts from 0.25) to geometric sequences (from 0.35) and quadratic
ones (second differences constant, from 0.65), and from "the next term" to "the n-th term" (from 0.25) and "the sum of
the first N terms" (from 0.5). Formulas are judged by equivalence (any correct formula passes); numbers must be exact.
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
                 "count": span(difficulty, 6, 30), "step": span(difficulty, 1, 8), "negative": difficulty >= 0.25}
        term, formula = _sequence(knobs, rng)
        shown = ", ".join(str(term(n)) for n in range(1, SHOWN + 1))
        if knobs["ask"] == "next":  # "the next term" (measured: 7 of 16 right for the 135M model; "term 6": 4 of 16)
            text = f"The sequence {shown}, ... continues by the same rule. What is the next term?"
            return variant(text, "number", str(term(SHOWN + 1)), knobs)
        start = f"The sequence {shown}, ... continues by the same rule (its first term is term 1)."
        if knobs["ask"] == "nth":
            return variant(f"{start} Give a formula for term n.", "expression in n", formula, knobs)
        count = knobs["count"]
        total = sum(Fraction(term(n)) for n in range(1, count + 1))
        return variant(f"{start} What is the sum of its first {count} terms?", "number", str(total), knobs)


def _sequence(knobs: dict, rng: random.Random):
    """The n-th term as a function and as a formula in n (the grammar's syntax)."""
    size = knobs["size"]
    if knobs["sequence"] == "arithmetic":
        sign = rng.choice([1, -1]) if knobs["negative"] else 1
        a = rng.randint(-size, size) if knobs["negative"] else rng.randint(1, size)
        d = sign * rng.randint(1, knobs["step"])
        return (lambda n: a + (n - 1) * d), f"{a} + (n - 1)*({d})"
    if knobs["sequence"] == "geometric":
        a, r = nonzero(rng, -size // 2 - 1, size // 2 + 1), rng.choice([-3, -2, 2, 3, 4])
        if knobs["ask"] == "sum":
            knobs["count"] = min(knobs["count"], 12)
        return (lambda n: a * r ** (n - 1)), f"({a})*({r})^(n - 1)"
    a, b, c = nonzero(rng, -3, 3), rng.randint(-size, size), rng.randint(-size, size)
    return (lambda n: a * n * n + b * n + c), f"({a})*n^2 + ({b})*n + ({c})"


FAMILY = register(Sequence())
