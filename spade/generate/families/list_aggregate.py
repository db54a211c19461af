"""Lists reduced to one number: sum, largest, count of evens; harder levels add filters and windows."""

from __future__ import annotations

from spade.generate.draws import int_list
from spade.generate.menu import MenuFamily, Op, span
from spade.generate.registry import register

NUMS = ("nums", "numbers", "xs", "values", "items", "data")


def _size(d, rng):
    return {"size": span(d, 6, 14)}


def _size_k(d, rng):
    return {"size": span(d, 6, 14), "k": rng.randint(1, 9)}


def _list(knobs, rng):
    return [int_list(rng, knobs["size"], min_len=2)]


def _nonempty(knobs, rng):
    return [int_list(rng, knobs["size"], min_len=1)]


def _window(knobs, rng):
    return [int_list(rng, knobs["size"] + 3, min_len=knobs["k"])]


EMPTY_EDGES = lambda k: [[[]], [[0]], [[-5]], [[3, 3, 3]]]  # noqa: E731
ONE_EDGES = lambda k: [[[0]], [[-5]], [[3, 3, 3]], [[-7, -2, -9]]]  # noqa: E731

OPS = (
    Op("sum", 0.0, ("sum_list", "total", "list_sum", "add_all", "sum_numbers"), (NUMS,),
       "def $name($a0: list[int]) -> int:",
       ("Return the sum of all numbers in the list $a0.",
        "Add up every integer in $a0 and return the total (0 for an empty list).",
        "Write $name: it returns the total of the numbers in $a0."),
       "    total = 0\n    for x in $a0:\n        total += x\n    return total",
       _list, _size, EMPTY_EDGES),
    Op("max", 0.0, ("max_of_list", "largest", "find_max", "biggest", "max_value"), (NUMS,),
       "def $name($a0: list[int]) -> int:",
       ("Return the largest number in the non-empty list $a0.",
        "Given a non-empty list of integers $a0, return its maximum.",
        "Find and return the biggest integer in $a0 (the list is never empty)."),
       "    return max($a0)",
       _nonempty, _size, ONE_EDGES),
    Op("min", 0.0, ("min_of_list", "smallest", "find_min", "min_value"), (NUMS,),
       "def $name($a0: list[int]) -> int:",
       ("Return the smallest number in the non-empty list $a0.",
        "Given a non-empty list of integers $a0, return its minimum."),
       "    return min($a0)",
       _nonempty, _size, ONE_EDGES),
    Op("count_even", 0.0, ("count_evens", "count_even", "num_even", "how_many_even"), (NUMS,),
       "def $name($a0: list[int]) -> int:",
       ("Return how many numbers in $a0 are even.",
        "Count the even integers in the list $a0 and return the count."),
       "    count = 0\n    for x in $a0:\n        if x % 2 == 0:\n            count += 1\n    return count",
       _list, _size, EMPTY_EDGES),
    Op("sum_above", 0.3, ("sum_above", "sum_greater_than", "total_above"), (NUMS,),
       "def $name($a0: list[int]) -> int:",
       ("Return the sum of the numbers in $a0 that are greater than $k.",
        "Add up only those integers in $a0 that are strictly larger than $k; return 0 if there are none."),
       "    total = 0\n    for x in $a0:\n        if x > $k:\n            total += x\n    return total",
       _list, _size_k, lambda k: [[[]], [[k["k"]]], [[k["k"] + 1]], [[k["k"] + 1, k["k"], 100]]]),
    Op("count_divisible", 0.3, ("count_divisible", "count_multiples", "num_multiples"), (NUMS,),
       "def $name($a0: list[int]) -> int:",
       ("Return how many numbers in $a0 are divisible by $m.",
        "Count the integers in $a0 that are multiples of $m."),
       "    return sum(1 for x in $a0 if x % $m == 0)",
       _list, lambda d, r: {"size": span(d, 6, 14), "m": r.randint(3, 7)},
       lambda k: [[[]], [[0]], [[k["m"], k["m"] + 1, -k["m"]]]]),
    Op("range", 0.5, ("spread", "value_range", "max_minus_min", "span_of"), (NUMS,),
       "def $name($a0: list[int]) -> int:",
       ("Return the difference between the largest and the smallest number in $a0, or 0 if $a0 is empty.",),
       "    if not $a0:\n        return 0\n    return max($a0) - min($a0)",
       _list, _size, lambda k: [[[]], [[4]], [[-3, 8]], [[5, 5]]]),
    Op("odd_squares", 0.5, ("sum_odd_squares", "odd_square_total", "square_odds_sum"), (NUMS,),
       "def $name($a0: list[int]) -> int:",
       ("Return the sum of the squares of the odd numbers in $a0.",
        "Square every odd integer in $a0 and return the sum of those squares (0 if there are none)."),
       "    total = 0\n    for x in $a0:\n        if x % 2 == 1:\n            total += x * x\n    return total",
       _list, _size, lambda k: [[[]], [[2, 4]], [[-3]], [[1, 2, 3]]]),
    Op("even_index_above", 0.7, ("sum_even_positions_above", "even_index_total", "picky_sum"), (NUMS,),
       "def $name($a0: list[int]) -> int:",
       ("Return the sum of the elements of $a0 at even indices (0, 2, 4, ...) whose value is at least $k.",
        "Look only at positions 0, 2, 4, ... of $a0 and add up the values there that are $k or more."),
       "    total = 0\n    for i in range(0, len($a0), 2):\n        if $a0[i] >= $k:\n            total += $a0[i]\n    return total",
       _list, _size_k, lambda k: [[[]], [[k["k"]]], [[k["k"] - 1, 50]], [[50, 50, 50]]]),
    Op("best_window", 0.9, ("max_window_sum", "best_run_total", "max_k_sum"), (NUMS,),
       "def $name($a0: list[int]) -> int:",
       ("Return the largest sum of $k consecutive elements of $a0; $a0 has at least $k elements.",
        "Among all windows of exactly $k adjacent numbers in $a0 (which has at least $k elements), return the largest window sum."),
       "    best = sum($a0[:$k])\n    cur = best\n    for i in range($k, len($a0)):\n        cur += $a0[i] - $a0[i - $k]\n"
       "        if cur > best:\n            best = cur\n    return best",
       _window, lambda d, r: {"size": span(d, 6, 14), "k": r.randint(2, 4)},
       lambda k: [[[-1] * k["k"]], [[5] * k["k"] + [-9]], [[-9] + [5] * k["k"]]]),
)

FAMILY = register(MenuFamily("list_aggregate", ("list", "aggregate"), OPS))
