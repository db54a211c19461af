"""Expanding and simplifying polynomials: "Expand and simplify: (2x - 3)(x + 4) - 3(x - 1)^2".

Difficulty 0 (below 0.25) is one step, a number times a sum: "Expand and simplify: 3(x - 2)". Above it, difficulty
adds products (1 to 3 summed), factors per product (2, then 3 from 0.6), squares and cubes (from 0.4),
larger coefficients, and a second variable y (from 0.75). The answer must be expanded with like terms combined
(the judge checks the form, so the question itself is no answer); the reference is expanded here exactly.
"""

from __future__ import annotations

import random
from fractions import Fraction

from spade.generate.family import Variant
from spade.generate.registry import register
from spade.kinds.math.families.base import (
    MathFamily,
    Poly,
    nonzero,
    poly_add,
    poly_mul,
    poly_pow,
    poly_text,
    span,
    variant,
)


class Polynomial(MathFamily):
    name = "math_polynomial"
    tags = ("math", "algebra", "polynomials")

    def variant(self, difficulty: float, rng: random.Random) -> Variant:
        knobs = {"products": span(difficulty, 1, 3), "factors": 3 if difficulty >= 0.6 else 2,
                 "powers": difficulty >= 0.4, "size": span(difficulty, 3, 9), "two_variables": difficulty >= 0.75,
                 "distribute": difficulty < 0.25}
        names = ("x", "y") if knobs["two_variables"] else ("x",)
        if knobs["distribute"]:
            scale, constant = rng.randint(2, 5), nonzero(rng, -knobs["size"], knobs["size"])
            factor = {(1,): Fraction(1), (0,): Fraction(constant)}
            description = f"Expand and simplify: {scale}({poly_text(factor, names)})."
            return variant(description, "polynomial in x", poly_text({e: scale * c for e, c in factor.items()}, names),
                           knobs)
        total: Poly = {}
        shown: list[str] = []
        for k in range(knobs["products"]):
            text, value = _product(knobs, names, rng)
            sign = 1 if k == 0 or rng.random() < 0.5 else -1
            scale = rng.choice([1, 1, 2, 3]) if k else 1
            total = poly_add(total, {e: c * scale for e, c in value.items()}, sign)
            prefix = "" if k == 0 else (" + " if sign > 0 else " - ")
            shown.append(prefix + ("" if scale == 1 else str(scale)) + text)
        form = f"polynomial in {', '.join(names)}"
        description = f"Expand and simplify: {''.join(shown)}."
        return variant(description, form, poly_text(total, names), knobs)


def _product(knobs: dict, names: tuple[str, ...], rng: random.Random) -> tuple[str, Poly]:
    width = len(names)
    texts, value = [], {(0,) * width: Fraction(1)}
    count = rng.randint(2, knobs["factors"])
    while len(texts) < count:
        factor = _factor(knobs, names, rng)
        power = rng.choice([2, 2, 3]) if knobs["powers"] and rng.random() < 0.35 else 1
        if power > 1 and len(texts) + 1 >= count and len(texts) > 0:
            power = 1
        shown = poly_text(factor, names).replace("*", "")
        texts.append(f"({shown})" + (f"^{power}" if power > 1 else ""))
        value = poly_mul(value, poly_pow(factor, power, width))
        if power > 1:
            count = max(count - 1, 1)
    return "".join(texts), value


def _factor(knobs: dict, names: tuple[str, ...], rng: random.Random) -> Poly:
    """A linear factor such as 2x - 3, or 2x - 3y + 1 with two variables."""
    width, size = len(names), knobs["size"]
    factor: Poly = {}
    for i in range(width):
        if i == 0 or rng.random() < 0.7:
            exponent = tuple(1 if j == i else 0 for j in range(width))
            factor[exponent] = Fraction(nonzero(rng, -size // 2 - 1, size // 2 + 1) if knobs["size"] > 3 else
                                        rng.choice([1, 1, 2, -1]))
    factor[(0,) * width] = Fraction(nonzero(rng, -size, size))
    return factor


FAMILY = register(Polynomial())
