"""Arithmetic with fractions and the order of operations: "Compute (3/4) + (5/6) * (2 - 1/3)".

Difficulty adds operands (2 below 0.3, then 3 to 6), brings - (from 0.1: the easiest task is a sum of two numbers up
to 9), * and fractions (from 0.3), / (from 0.5), bracketed groups (from 0.4) and small powers (from 0.7). The answer is a
number in lowest terms, computed with Fraction.
"""

from __future__ import annotations

import random
from fractions import Fraction

from spade.generate.family import Variant
from spade.generate.registry import register
from spade.kinds.math.families.base import MathFamily, fraction_text, span, variant

MAX_DENOMINATOR = 10_000


class Arithmetic(MathFamily):
    name = "math_arithmetic"
    tags = ("math", "arithmetic", "fractions")

    def variant(self, difficulty: float, rng: random.Random) -> Variant:
        ops = "+" + "".join(op for op, start in (("-", 0.1), ("*", 0.3), ("/", 0.5)) if difficulty >= start)
        knobs = {"operands": span(difficulty, 2, 6) if difficulty >= 0.3 else 2, "fractions": difficulty >= 0.3, "ops": ops,
                 "groups": difficulty >= 0.4, "powers": difficulty >= 0.7, "size": span(difficulty, 9, 30)}
        for _ in range(100):
            text, value = _expression(knobs, knobs["operands"], rng)
            if value is not None and value.denominator <= MAX_DENOMINATOR and abs(value) < 10**9:
                break
        else:  # pragma: no cover - a hundred failed draws would be a bug in the drawing
            raise RuntimeError("math_arithmetic could not draw an expression")
        description = f"Compute {text}."
        if knobs["fractions"] or "/" in knobs["ops"]:
            description += " Give the result as an integer or a fraction in lowest terms."
        return variant(description, "number", fraction_text(value), knobs)


def _operand(knobs: dict, rng: random.Random) -> tuple[str, Fraction]:
    if knobs["fractions"] and rng.random() < 0.6:
        q = rng.randint(2, max(3, knobs["size"] // 3))
        p = rng.randint(1, 2 * q)
        value = Fraction(p, q)
        return f"({value.numerator}/{value.denominator})" if value.denominator > 1 else str(value.numerator), value
    n = rng.randint(1, knobs["size"])
    return str(n), Fraction(n)


def _expression(knobs: dict, count: int, rng: random.Random) -> tuple[str, Fraction | None]:
    """`count` operands joined by the knobs' operators; a run of them may be a bracketed group."""
    parts: list[str] = []
    text, value = _operand(knobs, rng)
    if knobs["powers"] and rng.random() < 0.3 and value.denominator == 1 and value <= 12:
        exponent = rng.randint(2, 3)
        text, value = f"{text}^{exponent}", value**exponent
    parts.append(text)
    terms: list[Fraction] = []  # evaluated with precedence: a sum of products
    product = value
    used = 1
    while used < count:
        op = rng.choice(knobs["ops"])
        grouped = knobs["groups"] and count - used >= 2 and rng.random() < 0.4
        size = rng.randint(2, min(3, count - used)) if grouped else 1
        if size > 1:
            inner, inner_value = _expression(knobs, size, rng)
            if inner_value is None:
                return "", None
            text, value = f"({inner})", inner_value
        else:
            text, value = _operand(knobs, rng)
        used += size
        if op in "+-":
            terms.append(product)
            product = value if op == "+" else -value
        elif op == "*":
            product *= value
        else:
            if value == 0:
                return "", None
            product /= value
        parts.append(f"{op} {text}")
    terms.append(product)
    return " ".join(parts), sum(terms, Fraction(0))


FAMILY = register(Arithmetic())
