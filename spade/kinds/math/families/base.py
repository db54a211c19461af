"""What every math family shares: one test with no arguments, the answer form as the signature, and exact
rendering of fractions and polynomials (computed here with fractions.Fraction, never SymPy: the judge alone uses it).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from spade.generate.family import Family, Variant
from spade.kinds.math.validate import ENTRY_POINT, MATH

Poly = dict[tuple[int, ...], Fraction]
"""A polynomial: exponent tuple (one per variable) -> coefficient; zero coefficients are left out."""


class MathFamily(Family):
    kind = MATH

    def random_input(self, knobs: Mapping[str, Any], rng: random.Random) -> list[Any]:
        return []  # a math task has one test, with no arguments

    def edge_inputs(self, knobs: Mapping[str, Any]) -> list[list[Any]]:
        return []


def variant(description: str, form: str, reference: str, knobs: dict[str, Any]) -> Variant:
    return Variant(description=description, signature=form, entry_point=ENTRY_POINT, reference=reference,
                   knobs=knobs)


def span(difficulty: float, low: int, high: int) -> int:
    """An integer growing linearly from `low` at difficulty 0 to `high` at difficulty 1."""
    return low + round((high - low) * min(max(difficulty, 0.0), 1.0))


def nonzero(rng: random.Random, low: int, high: int) -> int:
    while True:
        value = rng.randint(low, high)
        if value:
            return value


def fraction_text(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def poly_mul(a: Poly, b: Poly) -> Poly:
    out: Poly = {}
    for ea, ca in a.items():
        for eb, cb in b.items():
            e = tuple(x + y for x, y in zip(ea, eb))
            out[e] = out.get(e, Fraction(0)) + ca * cb
    return {e: c for e, c in out.items() if c}


def poly_add(a: Poly, b: Poly, sign: int = 1) -> Poly:
    out = dict(a)
    for e, c in b.items():
        out[e] = out.get(e, Fraction(0)) + sign * c
    return {e: c for e, c in out.items() if c}


def poly_pow(a: Poly, n: int, width: int) -> Poly:
    out: Poly = {(0,) * width: Fraction(1)}
    for _ in range(n):
        out = poly_mul(out, a)
    return out


def poly_text(p: Poly, names: tuple[str, ...]) -> str:
    """Expanded, highest total degree first: 3*x^2 - x*y + 1/2; '0' for the zero polynomial."""
    p = {e: c for e, c in p.items() if c}
    if not p:
        return "0"
    parts = []
    for e in sorted(p, key=lambda e: (-sum(e), [-x for x in e])):
        c = p[e]
        powers = "*".join(n if k == 1 else f"{n}^{k}" for n, k in zip(names, e) if k)
        magnitude = abs(c)
        if not powers:
            body = fraction_text(magnitude)
        elif magnitude == 1:
            body = powers
        elif magnitude.denominator == 1:
            body = f"{magnitude.numerator}*{powers}"
        else:
            body = f"{magnitude.numerator}*{powers}/{magnitude.denominator}"
        sign = "-" if c < 0 else "+"
        parts.append(("-" if sign == "-" else "") + body if not parts else f" {sign} {body}")
    return "".join(parts)


def linear_text(coefficient: int, constant: int, name: str = "x") -> str:
    """A factor such as (2x - 3), as shown in a problem (implicit multiplication, as people write it)."""
    lead = "" if coefficient == 1 else "-" if coefficient == -1 else str(coefficient)
    if constant == 0:
        return f"{lead}{name}"
    return f"{lead}{name} {'+' if constant > 0 else '-'} {abs(constant)}"
