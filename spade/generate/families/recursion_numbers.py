"""Recursive number sequences and counts: factorial, Fibonacci, powers, Collatz steps, Hanoi moves."""

from __future__ import annotations

from spade.generate.menu import MenuFamily, Op, span
from spade.generate.registry import register

N = ("n", "k", "num")


def _mag(d, rng):
    return {"high": span(d, 10, 25)}


def _n(knobs, rng):
    return [rng.randint(0, knobs["high"])]


OPS = (
    Op("factorial", 0.0, ("factorial", "fact"), (N,), "def $name($a0: int) -> int:",
       ("Return the factorial of the non-negative integer $a0 (the factorial of 0 is 1).",),
       "    if $a0 == 0:\n        return 1\n    return $a0 * $name($a0 - 1)", _n, _mag, lambda k: [[0], [1], [2], [5]]),
    Op("fib", 0.0, ("fibonacci", "fib", "nth_fibonacci"), (N,), "def $name($a0: int) -> int:",
       ("Return the $a0-th Fibonacci number, where fib(0) = 0 and fib(1) = 1.",),
       "    a, b = 0, 1\n    for _ in range($a0):\n        a, b = b, a + b\n    return a", _n, _mag, lambda k: [[0], [1], [2], [10]]),
    Op("power", 0.3, ("power", "int_pow", "raise_to"), (("base", "b", "x"), ("exp", "e", "p")),
       "def $name($a0: int, $a1: int) -> int:",
       ("Return $a0 raised to the non-negative integer power $a1, computed by repeated multiplication.",),
       "    result = 1\n    for _ in range($a1):\n        result *= $a0\n    return result",
       lambda k, r: [r.randint(-5, 5), r.randint(0, k["high"] // 2)], _mag, lambda k: [[0, 0], [2, 0], [-2, 3], [3, 1]]),
    Op("collatz", 0.5, ("collatz_steps", "steps_to_one", "hailstone_length"), (N,), "def $name($a0: int) -> int:",
       ("Starting from the positive integer $a0, repeatedly halve it if it is even or replace it by 3 times it plus 1 "
        "if it is odd. Return how many steps it takes to reach 1.",),
       "    steps = 0\n    while $a0 != 1:\n        $a0 = $a0 // 2 if $a0 % 2 == 0 else 3 * $a0 + 1\n        steps += 1\n    return steps",
       lambda k, r: [r.randint(1, k["high"] * 10)], _mag, lambda k: [[1], [2], [3], [27]]),
    Op("tribonacci", 0.7, ("tribonacci", "trib"), (N,), "def $name($a0: int) -> int:",
       ("Return the $a0-th tribonacci number: t(0) = 0, t(1) = 0, t(2) = 1, and each later term is the sum of the "
        "three before it.",),
       "    a, b, c = 0, 0, 1\n    for _ in range($a0):\n        a, b, c = b, c, a + b + c\n    return a",
       _n, _mag, lambda k: [[0], [1], [2], [3], [4]]),
    Op("hanoi_moves", 0.9, ("hanoi_moves", "tower_moves"), (N, ("src", "start"), ("dst", "goal")),
       "def $name($a0: int, $a1: str, $a2: str) -> list[list[str]]:",
       ("Solve the Towers of Hanoi with $a0 disks on three pegs named 'A', 'B' and 'C', moving all disks from peg $a1 "
        "to peg $a2. Return the moves in order, each as [from_peg, to_peg], using the classic recursive solution "
        "(the minimal number of moves).",),
       "    if $a0 == 0:\n        return []\n    other = ({'A', 'B', 'C'} - {$a1, $a2}).pop()\n"
       "    return $name($a0 - 1, $a1, other) + [[$a1, $a2]] + $name($a0 - 1, other, $a2)",
       lambda k, r: [r.randint(1, 5)] + r.sample(["A", "B", "C"], 2), _mag,
       lambda k: [[0, "A", "C"], [1, "B", "A"], [2, "A", "B"]]),
)

FAMILY = register(MenuFamily("recursion_numbers", ("recursion", "math"), OPS))
