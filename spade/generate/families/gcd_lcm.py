"""Divisibility: greatest common divisor, least common multiple, divisor counts and perfect numbers."""

from __future__ import annotations

from spade.generate.menu import MenuFamily, Op, span
from spade.generate.registry import register

A = ("a", "x", "first")
B = ("b", "y", "second")


def _mag(d, rng):
    return {"high": span(d, 30, 500)}


def _pair(knobs, rng):
    f = rng.randint(1, 12)
    return [f * rng.randint(1, knobs["high"] // 10 + 1), f * rng.randint(1, knobs["high"] // 10 + 1)]


OPS = (
    Op("gcd", 0.0, ("gcd", "greatest_common_divisor", "common_divisor"), (A, B), "def $name($a0: int, $a1: int) -> int:",
       ("Return the greatest common divisor of the positive integers $a0 and $a1.",),
       "    while $a1:\n        $a0, $a1 = $a1, $a0 % $a1\n    return $a0", _pair, _mag, lambda k: [[1, 1], [7, 7], [12, 18], [5, 13]]),
    Op("is_divisor", 0.0, ("divides", "is_divisible", "is_factor"), (A, B), "def $name($a0: int, $a1: int) -> bool:",
       ("Return True if $a0 is divisible by $a1 ($a1 is never zero), otherwise False.",),
       "    return $a0 % $a1 == 0", lambda k, r: [r.randint(0, k["high"]), r.randint(1, 12)], _mag,
       lambda k: [[0, 3], [6, 3], [7, 3], [1, 1]]),
    Op("lcm", 0.3, ("lcm", "least_common_multiple"), (A, B), "def $name($a0: int, $a1: int) -> int:",
       ("Return the least common multiple of the positive integers $a0 and $a1.",),
       "    m = max($a0, $a1)\n    while m % $a0 != 0 or m % $a1 != 0:\n        m += 1\n    return m",
       lambda k, r: [r.randint(1, 30), r.randint(1, 30)], _mag, lambda k: [[1, 1], [4, 6], [7, 5], [3, 9]]),
    Op("divisor_count", 0.5, ("count_divisors", "num_divisors", "divisor_count"), (("n", "num"),),
       "def $name($a0: int) -> int:",
       ("Return how many positive divisors the positive integer $a0 has.",),
       "    return sum(1 for d in range(1, $a0 + 1) if $a0 % d == 0)",
       lambda k, r: [r.randint(1, k["high"])], _mag, lambda k: [[1], [2], [12], [49]]),
    Op("gcd_list", 0.7, ("gcd_of_list", "list_gcd", "common_factor"), (("nums", "values"),), "def $name($a0: list[int]) -> int:",
       ("Return the greatest common divisor of all the positive integers in the non-empty list $a0.",),
       "    g = 0\n    for x in $a0:\n        while x:\n            g, x = x, g % x\n    return g",
       lambda k, r: [[r.randint(1, 6) * r.choice([6, 10, 15]) for _ in range(r.randint(1, 5))]], _mag,
       lambda k: [[[1]], [[12]], [[4, 6]], [[9, 27, 81]]]),
    Op("perfect_upto", 0.9, ("perfect_numbers", "list_perfect"), (("limit", "upper", "top"),), "def $name($a0: int) -> list[int]:",
       ("Return, in increasing order, every number from 2 up to $a0 inclusive that equals the sum of its proper divisors "
        "(the divisors smaller than itself).",),
       "    out = []\n    for n in range(2, $a0 + 1):\n        if sum(d for d in range(1, n) if n % d == 0) == n:\n            out.append(n)\n    return out",
       lambda k, r: [r.randint(1, 600)], _mag, lambda k: [[1], [6], [5], [28], [27]]),
)

FAMILY = register(MenuFamily("gcd_lcm", ("math", "number_theory"), OPS))
