"""Dynamic programming over sequences: best subarray, increasing subsequences, common subsequences, house robber."""

from __future__ import annotations

from spade.generate.draws import int_list, word
from spade.generate.menu import MenuFamily, Op, span
from spade.generate.registry import register

XS = ("nums", "xs", "values", "prices")


def _size(d, rng):
    return {"size": span(d, 5, 14)}


def _ints(knobs, rng):
    return [int_list(rng, knobs["size"], -10, 10, 1)]


OPS = (
    Op("rises", 0.0, ("count_rises", "count_increases", "num_rises"), (XS,), "def $name($a0: list[int]) -> int:",
       ("Return how many elements of $a0 are larger than the element just before them.",),
       "    count = 0\n    for i in range(1, len($a0)):\n        if $a0[i] > $a0[i - 1]:\n            count += 1\n    return count",
       _ints, _size, lambda k: [[[]], [[5]], [[1, 2]], [[2, 1]], [[3, 3]]]),
    Op("max_pair_gap", 0.2, ("max_gain", "best_profit", "max_difference"), (XS,), "def $name($a0: list[int]) -> int:",
       ("Return the largest value of $a0[j] - $a0[i] with i < j, or 0 if no difference is positive.",),
       "    best = 0\n    low = None\n    for x in $a0:\n        if low is None or x < low:\n            low = x\n        elif x - low > best:\n            best = x - low\n    return best",
       _ints, _size, lambda k: [[[]], [[5]], [[5, 1]], [[1, 5]], [[3, 1, 4]]]),
    Op("max_subarray", 0.4, ("max_subarray_sum", "best_slice_sum", "kadane"), (XS,), "def $name($a0: list[int]) -> int:",
       ("Return the largest sum of a non-empty block of consecutive elements of the non-empty list $a0.",),
       "    best = cur = $a0[0]\n    for x in $a0[1:]:\n        cur = max(x, cur + x)\n        best = max(best, cur)\n    return best",
       _ints, _size, lambda k: [[[-3]], [[-3, -1]], [[2, -1, 2]], [[1, -5, 4]]]),
    Op("robber", 0.6, ("max_non_adjacent_sum", "house_robber", "rob"), (XS,), "def $name($a0: list[int]) -> int:",
       ("Return the largest sum of elements of $a0 (all non-negative) you can pick when no two picked elements are "
        "adjacent. Picking nothing gives 0.",),
       "    take, skip = 0, 0\n    for x in $a0:\n        take, skip = skip + x, max(take, skip)\n    return max(take, skip)",
       lambda k, r: [int_list(r, k["size"], 0, 20)], _size, lambda k: [[[]], [[4]], [[4, 5]], [[5, 1, 1, 5]]]),
    Op("lis", 0.8, ("longest_increasing", "lis_length"), (XS,), "def $name($a0: list[int]) -> int:",
       ("Return the length of the longest strictly increasing subsequence of $a0 (elements need not be adjacent).",),
       "    best = []\n    for i, x in enumerate($a0):\n        best.append(1 + max([best[j] for j in range(i) if $a0[j] < x], default=0))\n    return max(best, default=0)",
       _ints, _size, lambda k: [[[]], [[2, 2]], [[3, 1, 2]], [[1, 2, 3]]]),
    Op("lcs", 0.9, ("lcs_length", "common_subsequence"), (("a", "s", "first"), ("b", "t", "second")),
       "def $name($a0: str, $a1: str) -> int:",
       ("Return the length of the longest common subsequence of the strings $a0 and $a1.",),
       "    prev = [0] * (len($a1) + 1)\n    for ca in $a0:\n        cur = [0]\n        for j, cb in enumerate($a1):\n"
       "            cur.append(prev[j] + 1 if ca == cb else max(prev[j + 1], cur[j]))\n        prev = cur\n    return prev[-1]",
       lambda k, r: [word(r, 0, k["size"], "abc"), word(r, 0, k["size"], "abc")], _size,
       lambda k: [["", ""], ["a", ""], ["abc", "abc"], ["ab", "ba"], ["abc", "xyz"]]),
)

FAMILY = register(MenuFamily("dp_sequences", ("dynamic_programming", "list"), OPS))
