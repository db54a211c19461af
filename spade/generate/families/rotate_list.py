"""Rotating and slicing lists by a count k; harder levels allow k beyond the length and negative k."""

from __future__ import annotations

from spade.generate.draws import int_list
from spade.generate.menu import MenuFamily, Op, span
from spade.generate.registry import register

NUMS = ("xs", "nums", "items", "arr")
KS = ("k", "n", "steps", "shift")
SIG = "def $name($a0: list[int], $a1: int) -> list[int]:"


def _size(d, rng):
    return {"size": span(d, 5, 12)}


def _small_k(knobs, rng):
    xs = int_list(rng, knobs["size"], -9, 9, min_len=2)
    return [xs, rng.randint(0, len(xs))]


def _any_k(knobs, rng):
    xs = int_list(rng, knobs["size"], -9, 9, min_len=1)
    return [xs, rng.randint(-3 * len(xs), 3 * len(xs))]


OPS = (
    Op("first_k", 0.0, ("first_k", "take", "head"), (NUMS, KS), SIG,
       ("Return the first $a1 elements of $a0 ($a1 is between 0 and the length of $a0).",),
       "    return $a0[:$a1]", _small_k, _size, lambda k: [[[], 0], [[1, 2], 0], [[1, 2], 2]]),
    Op("drop_k", 0.0, ("drop", "skip_first", "without_first"), (NUMS, KS), SIG,
       ("Return $a0 without its first $a1 elements ($a1 is between 0 and the length of $a0).",),
       "    return $a0[$a1:]", _small_k, _size, lambda k: [[[], 0], [[1, 2], 0], [[1, 2], 2]]),
    Op("rotate_left", 0.3, ("rotate_left", "rotl", "shift_left"), (NUMS, KS), SIG,
       ("Rotate $a0 to the left by $a1 positions and return the result; $a1 is between 0 and the length of $a0.",),
       "    return $a0[$a1:] + $a0[:$a1]", _small_k, _size, lambda k: [[[], 0], [[1, 2, 3], 3], [[1, 2, 3], 1]]),
    Op("rotate_right", 0.5, ("rotate_right", "rotr", "shift_right"), (NUMS, KS), SIG,
       ("Rotate $a0 to the right by $a1 positions; $a1 may be larger than the length. An empty list stays empty.",),
       "    if not $a0:\n        return []\n    s = $a1 % len($a0)\n    return $a0[len($a0) - s:] + $a0[:len($a0) - s]",
       lambda k, r: [int_list(r, k["size"], -9, 9, 1), r.randint(0, 3 * k["size"])], _size,
       lambda k: [[[], 5], [[1, 2, 3], 3], [[1, 2, 3], 4], [[4], 9]]),
    Op("rotate_signed", 0.8, ("rotate", "rotate_by", "cyclic_shift"), (NUMS, KS), SIG,
       ("Rotate $a0 by $a1 positions: to the left when $a1 is positive, to the right when it is negative. "
        "$a1 may exceed the length. Return a new list; an empty list stays empty.",),
       "    if not $a0:\n        return []\n    s = $a1 % len($a0)\n    return $a0[s:] + $a0[:s]",
       _any_k, _size, lambda k: [[[], -2], [[1, 2, 3], -1], [[1, 2, 3], 4], [[1, 2, 3, 4], -6]]),
)

FAMILY = register(MenuFamily("rotate_list", ("list", "slicing"), OPS))
