"""Equations in x: linear ("Solve for x: 3x + 5 = x - 7") and quadratic ("Solve x^2 - x - 6 = 0").

Linear: below 0.25 one step, x plus a positive number ("Solve for x: x + 3 = 8"); above, difficulty widens the
coefficients, puts x on both sides (from 0.3), brackets (from 0.6) and makes the solution a fraction (from 0.5).
Quadratic: below 0.25 already factored ("(x - 3)(x - 5) = 0", positive roots); above, integer roots, a double root
or a leading coefficient (from 0.3), rational roots (from 0.5), terms on both sides (from 0.6), irrational roots
a ± sqrt(b) (from 0.75). Answers are the solutions as a set ("x = 2, x = -3"); the reference is computed exactly here
and canonicalised by the judge.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

from spade.generate.family import Variant
from spade.generate.registry import register
from spade.kinds.math.families.base import (
    MathFamily,
    fraction_text,
    linear_text,
    nonzero,
    poly_text,
    span,
    variant,
)


class Linear(MathFamily):
    name = "math_linear"
    tags = ("math", "algebra", "equations")

    def variant(self, difficulty: float, rng: random.Random) -> Variant:
        size = span(difficulty, 5, 20)
        knobs = {"size": size, "both_sides": difficulty >= 0.3, "brackets": difficulty >= 0.6,
                 "fraction": difficulty >= 0.5, "one_step": difficulty < 0.25}
        if knobs["one_step"]:
            solution, b = rng.randint(1, size), rng.randint(1, size)
            return variant(f"Solve for x: {linear_text(1, b)} = {solution + b}.", "numbers in x", f"x = {solution}",
                           knobs)
        q = rng.randint(2, 5) if knobs["fraction"] else 1
        solution = Fraction(nonzero(rng, -size, size), q)
        c = nonzero(rng, -size // 2, size // 2) if knobs["both_sides"] else 0
        a = 0
        while a == 0:
            a = c + q * nonzero(rng, -3, 3)  # a - c is a multiple of q, so every constant below is an integer
        b = rng.randint(-size, size)
        d = (a - c) * solution + b  # a x + b = c x + d holds at the solution
        if knobs["brackets"] and a % 2 == 0 and b % 2 == 0 and a:
            left = f"2({linear_text(a // 2, b // 2)})"
        else:
            left = linear_text(a, b)
        right = poly_text({(1,): Fraction(c), (0,): Fraction(d)} if c else {(0,): Fraction(d)}, ("x",))
        right = right.replace("*x", "x")
        return variant(f"Solve for x: {left} = {right}.", "numbers in x", f"x = {fraction_text(solution)}", knobs)


class Quadratic(MathFamily):
    name = "math_quadratic"
    tags = ("math", "algebra", "equations", "quadratics")

    def variant(self, difficulty: float, rng: random.Random) -> Variant:
        size = span(difficulty, 4, 12)
        knobs = {"size": size, "leading": difficulty >= 0.3, "rational": difficulty >= 0.5,
                 "both_sides": difficulty >= 0.6, "irrational": difficulty >= 0.75, "factored": difficulty < 0.25}
        if knobs["factored"]:
            r1, r2 = rng.sample(range(1, size + 1), 2)
            text = f"Solve for x: ({linear_text(1, -r1)})({linear_text(1, -r2)}) = 0. Give every real solution."
            return variant(text, "numbers in x", f"x = {r1}, x = {r2}", knobs)
        if knobs["irrational"] and rng.random() < 0.6:
            p, r = rng.randint(-size, size), rng.choice([2, 3, 5, 6, 7, 10, 11, 13])
            coefficients = [1, -2 * p, p * p - r]  # roots p ± sqrt(r)
            form, reference = "constants in x", f"x = {p} + sqrt({r}), x = {p} - sqrt({r})"
        else:
            roots = _rational_roots(knobs, size, rng)
            (n1, d1), (n2, d2) = roots
            lead = rng.choice([1, 1, 2, 3]) if knobs["leading"] and d1 == d2 == 1 else 1
            coefficients = [lead * d1 * d2, -lead * (n1 * d2 + n2 * d1), lead * n1 * n2]  # lead (d1 x - n1)(d2 x - n2)
            form = "numbers in x"
            reference = ", ".join(f"x = {fraction_text(Fraction(n, d))}" for n, d in roots)
        left, right = _sides(coefficients, knobs["both_sides"], rng)
        return variant(f"Solve for x: {left} = {right}. Give every real solution.", form, reference, knobs)


def _rational_roots(knobs: dict, size: int, rng: random.Random) -> list[tuple[int, int]]:
    if knobs["leading"] and rng.random() < 0.2:
        root = rng.randint(-size, size)
        return [(root, 1), (root, 1)]  # a double root: both items are the same value
    denominators = [rng.randint(1, 4), 1] if knobs["rational"] else [1, 1]
    roots = []
    for d in denominators:
        while True:
            n = rng.randint(-size, size)
            if math.gcd(n, d) == 1 and (n, d) not in roots:
                roots.append((n, d))
                break
    return roots


def _sides(coefficients: list[int], both_sides: bool, rng: random.Random) -> tuple[str, str]:
    """The equation a x^2 + b x + c = 0, or with some terms moved to the right-hand side."""
    a, b, c = coefficients
    move_b, move_c = (rng.random() < 0.5, rng.random() < 0.7) if both_sides else (False, False)
    left = {(2,): Fraction(a)}
    right: dict[tuple[int, ...], Fraction] = {}
    for exponent, value, move in (((1,), b, move_b), ((0,), c, move_c)):
        if value:
            (right if move else left)[exponent] = Fraction(-value if move else value)
    show = lambda p: poly_text(p, ("x",)).replace("*x", "x")  # noqa: E731  (3x^2, as written by hand)
    return show(left), show(right)


LINEAR = register(Linear())
QUADRATIC = register(Quadratic())
