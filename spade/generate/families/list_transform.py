"""Lists mapped to lists: reverse, double, keep evens; harder levels chain filters, maps and sorting."""

from __future__ import annotations

from spade.generate.draws import int_list
from spade.generate.menu import MenuFamily, Op, span
from spade.generate.registry import register

NUMS = ("nums", "numbers", "xs", "values", "arr")
LIST_SIG = "def $name($a0: list[int]) -> list[int]:"


def _size(d, rng):
    return {"size": span(d, 6, 14)}


def _list(knobs, rng):
    return [int_list(rng, knobs["size"], min_len=2)]


EDGES = lambda k: [[[]], [[7]], [[-4, 0, 4]], [[2, 2, 1]]]  # noqa: E731

OPS = (
    Op("reverse", 0.0, ("reverse_list", "reversed_list", "flip_list", "backwards"), (NUMS,), LIST_SIG,
       ("Return the list $a0 in reverse order.", "Return a new list with the elements of $a0 reversed."),
       "    out = []\n    for x in $a0:\n        out.insert(0, x)\n    return out", _list, _size, EDGES),
    Op("double", 0.0, ("double_all", "double_each", "times_two", "doubled"), (NUMS,), LIST_SIG,
       ("Return a new list where every number in $a0 is doubled.", "Multiply each element of $a0 by 2 and return the new list."),
       "    return [x * 2 for x in $a0]", _list, _size, EDGES),
    Op("evens", 0.0, ("keep_evens", "only_even", "filter_even", "even_numbers"), (NUMS,), LIST_SIG,
       ("Return a list of the even numbers in $a0, in their original order.", "Keep only the even integers of $a0 and return them in order."),
       "    return [x for x in $a0 if x % 2 == 0]", _list, _size, EDGES),
    Op("square", 0.0, ("square_all", "squares", "square_each"), (NUMS,), LIST_SIG,
       ("Return a list with the square of each number in $a0.",),
       "    return [x * x for x in $a0]", _list, _size, EDGES),
    Op("add_k_positive", 0.3, ("shift_positives", "bump_positive", "add_to_positives"), (NUMS,), LIST_SIG,
       ("Return a new list where $k is added to every positive number of $a0; other numbers stay the same.",),
       "    return [x + $k if x > 0 else x for x in $a0]", _list,
       lambda d, r: {"size": span(d, 6, 14), "k": r.randint(1, 9)}, EDGES),
    Op("running_sum", 0.3, ("running_sum", "prefix_sums", "cumulative_sum"), (NUMS,), LIST_SIG,
       ("Return the running sums of $a0: element i of the result is the sum of $a0[0] through $a0[i].",),
       "    out = []\n    total = 0\n    for x in $a0:\n        total += x\n        out.append(total)\n    return out",
       _list, _size, EDGES),
    Op("unique_order", 0.5, ("dedupe", "unique_in_order", "remove_duplicates"), (NUMS,), LIST_SIG,
       ("Return $a0 without repeated values, keeping the first occurrence of each value in order.",),
       "    seen = set()\n    out = []\n    for x in $a0:\n        if x not in seen:\n            seen.add(x)\n            out.append(x)\n    return out",
       lambda k, r: [int_list(r, k["size"], -5, 5, min_len=2)], _size, lambda k: [[[]], [[1, 1, 1]], [[2, 1, 2, 1]]]),
    Op("odd_sq_sorted", 0.7, ("sorted_odd_squares", "odd_squares_sorted"), (NUMS,), LIST_SIG,
       ("Square every odd number in $a0, drop the even numbers, and return the squares sorted in increasing order.",),
       "    return sorted(x * x for x in $a0 if x % 2 != 0)", _list, _size, EDGES),
    Op("clip_filter_rev", 0.9, ("clip_and_reverse", "clamp_filter_reverse"), (NUMS,), LIST_SIG,
       ("Clamp every number of $a0 into the range [$lo, $hi], remove the results equal to $hi, and return what is left in reverse order.",),
       "    out = []\n    for x in $a0:\n        y = min(max(x, $lo), $hi)\n        if y != $hi:\n            out.append(y)\n    return out[::-1]",
       _list, lambda d, r: {"size": span(d, 6, 14), "lo": r.randint(-8, -2), "hi": r.randint(2, 8)},
       lambda k: [[[]], [[k["hi"]]], [[k["lo"] - 5, k["hi"] + 5, 0]], [[k["lo"], k["hi"] - 1]]]),
)

FAMILY = register(MenuFamily("list_transform", ("list", "map", "filter"), OPS))
