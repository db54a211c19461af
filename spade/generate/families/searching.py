"""Searching: linear and binary search, first occurrence, insertion point, counting in a sorted list."""

from __future__ import annotations

from spade.generate.draws import int_list, sorted_unique
from spade.generate.menu import MenuFamily, Op, span
from spade.generate.registry import register

XS = ("xs", "nums", "arr", "items")
T = ("target", "x", "value", "key")


def _size(d, rng):
    return {"size": span(d, 5, 16)}


def _sorted_with_target(knobs, rng):
    xs = sorted_unique(rng, knobs["size"], min_len=1)
    return [xs, rng.choice(xs) if rng.random() < 0.6 else rng.randint(-55, 55)]


def _sorted_dupes(knobs, rng):
    xs = sorted(int_list(rng, knobs["size"], -5, 5, min_len=1))
    return [xs, rng.choice(xs) if rng.random() < 0.6 else rng.randint(-7, 7)]


EDGES = lambda k: [[[], 3], [[3], 3], [[3], 4], [[1, 3], 1], [[1, 3], 3], [[1, 3], 2], [[1, 3], 0]]  # noqa: E731

OPS = (
    Op("contains", 0.0, ("contains", "has_value", "includes"), (XS, T), "def $name($a0: list[int], $a1: int) -> bool:",
       ("Return True if $a1 is in the list $a0, otherwise False.",),
       "    for v in $a0:\n        if v == $a1:\n            return True\n    return False",
       lambda k, r: [int_list(r, k["size"], -9, 9, 1), r.randint(-9, 9)], _size, lambda k: [[[], 1], [[1], 1], [[2], 1]]),
    Op("index_of", 0.0, ("index_of", "find_index", "position"), (XS, T), "def $name($a0: list[int], $a1: int) -> int:",
       ("Return the index of the first occurrence of $a1 in $a0, or -1 if it is not there.",),
       "    for i in range(len($a0)):\n        if $a0[i] == $a1:\n            return i\n    return -1",
       lambda k, r: [int_list(r, k["size"], -9, 9, 1), r.randint(-9, 9)], _size, EDGES),
    Op("binary_search", 0.4, ("binary_search", "bsearch", "search_sorted"), (XS, T), "def $name($a0: list[int], $a1: int) -> int:",
       ("$a0 is sorted in increasing order with no repeats. Return the index of $a1 in $a0, or -1 if it is absent.",),
       "    lo, hi = 0, len($a0) - 1\n    while lo <= hi:\n        mid = (lo + hi) // 2\n        if $a0[mid] == $a1:\n            return mid\n"
       "        if $a0[mid] < $a1:\n            lo = mid + 1\n        else:\n            hi = mid - 1\n    return -1",
       _sorted_with_target, _size, EDGES),
    Op("insert_pos", 0.6, ("insert_position", "search_insert", "lower_bound"), (XS, T), "def $name($a0: list[int], $a1: int) -> int:",
       ("$a0 is sorted in increasing order. Return the first index at which $a1 could be inserted to keep it sorted, "
        "i.e. the number of elements smaller than $a1.",),
       "    lo, hi = 0, len($a0)\n    while lo < hi:\n        mid = (lo + hi) // 2\n        if $a0[mid] < $a1:\n            lo = mid + 1\n"
       "        else:\n            hi = mid\n    return lo", _sorted_dupes, _size, EDGES),
    Op("count_sorted", 0.8, ("count_in_sorted", "occurrences", "count_occurrences"), (XS, T),
       "def $name($a0: list[int], $a1: int) -> int:",
       ("$a0 is sorted in increasing order and may contain repeats. Return how many times $a1 occurs in it.",),
       "    def bound(strict):\n        lo, hi = 0, len($a0)\n        while lo < hi:\n            mid = (lo + hi) // 2\n"
       "            if $a0[mid] < $a1 or (not strict and $a0[mid] == $a1):\n                lo = mid + 1\n            else:\n"
       "                hi = mid\n        return lo\n    return bound(False) - bound(True)",
       _sorted_dupes, _size, lambda k: [[[], 1], [[1, 1, 1], 1], [[0, 1, 1, 2], 1], [[0, 2], 1], [[2, 2], 2]]),
)

FAMILY = register(MenuFamily("searching", ("search", "list"), OPS))
