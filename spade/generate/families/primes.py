"""Primes: primality, counting and listing primes, prime factors."""

from __future__ import annotations

from spade.generate.menu import MenuFamily, Op, span
from spade.generate.registry import register

N = ("num", "number", "limit", "value")


def _mag(d, rng):
    return {"high": span(d, 40, 400)}


OPS = (
    Op("is_prime", 0.0, ("is_prime", "prime", "check_prime"), (N,), "def $name($a0: int) -> bool:",
       ("Return True if $a0 is a prime number, otherwise False.", "Check whether the integer $a0 is prime."),
       "    if $a0 < 2:\n        return False\n    for d in range(2, $a0):\n        if $a0 % d == 0:\n            return False\n    return True",
       lambda k, r: [r.randint(-3, k["high"])], _mag, lambda k: [[0], [1], [2], [3], [4], [9]]),
    Op("count_primes", 0.3, ("count_primes", "prime_count", "primes_below"), (N,), "def $name($a0: int) -> int:",
       ("Return how many prime numbers are strictly less than $a0.",),
       "    count = 0\n    for n in range(2, $a0):\n        if all(n % d != 0 for d in range(2, n)):\n            count += 1\n    return count",
       lambda k, r: [r.randint(0, k["high"])], _mag, lambda k: [[0], [2], [3], [10], [11]]),
    Op("prime_factors", 0.6, ("prime_factors", "factorize", "factors"), (N,), "def $name($a0: int) -> list[int]:",
       ("Return the prime factors of $a0 (at least 2) in increasing order, repeated as often as they divide it; "
        "e.g. 12 gives [2, 2, 3].",),
       "    out = []\n    d = 2\n    while $a0 > 1:\n        while $a0 % d == 0:\n            out.append(d)\n            $a0 //= d\n        d += 1\n    return out",
       lambda k, r: [r.randint(2, k["high"] * 5)], _mag, lambda k: [[2], [4], [12], [97], [100]]),
    Op("nth_prime", 0.8, ("nth_prime", "prime_number_n"), (N,), "def $name($a0: int) -> int:",
       ("Return the $a0-th prime number, counting from 1 (the 1st prime is 2).",),
       "    count = 0\n    n = 1\n    while count < $a0:\n        n += 1\n        if all(n % d != 0 for d in range(2, n)):\n            count += 1\n    return n",
       lambda k, r: [r.randint(1, k["high"] // 8)], _mag, lambda k: [[1], [2], [3], [10]]),
    Op("twin_primes", 0.9, ("twin_primes", "twin_prime_pairs"), (N,), "def $name($a0: int) -> list[list[int]]:",
       ("Return every pair [p, p + 2] where both p and p + 2 are prime and p + 2 is at most $a0, ordered by p.",),
       "    def is_p(n):\n        return n > 1 and all(n % d for d in range(2, n))\n"
       "    return [[p, p + 2] for p in range(2, $a0 - 1) if is_p(p) and is_p(p + 2)]",
       lambda k, r: [r.randint(0, k["high"])], _mag, lambda k: [[0], [5], [7], [13], [12]]),
)

FAMILY = register(MenuFamily("primes", ("math", "number_theory", "primes"), OPS))
