"""Sorting: ascending, descending, by length, by custom keys with tie-breaks, and merging sorted lists."""

from __future__ import annotations

from spade.generate.draws import int_list, words
from spade.generate.menu import MenuFamily, Op, span
from spade.generate.registry import register

XS = ("xs", "nums", "values", "arr")
WS = ("words", "names", "items")


def _size(d, rng):
    return {"size": span(d, 5, 14)}


def _ints(knobs, rng):
    return [int_list(rng, knobs["size"], -30, 30, 2)]


def _words(knobs, rng):
    return [words(rng, knobs["size"], 2)]


OPS = (
    Op("ascending", 0.0, ("sort_list", "sort_ascending", "sorted_copy"), (XS,), "def $name($a0: list[int]) -> list[int]:",
       ("Return the numbers of $a0 sorted from smallest to largest.",),
       "    out = list($a0)\n    for i in range(len(out)):\n        for j in range(len(out) - 1 - i):\n            if out[j] > out[j + 1]:\n"
       "                out[j], out[j + 1] = out[j + 1], out[j]\n    return out",
       _ints, _size, lambda k: [[[]], [[1]], [[2, 1]], [[3, 3, 1]]]),
    Op("descending", 0.0, ("sort_descending", "sort_desc", "largest_first"), (XS,), "def $name($a0: list[int]) -> list[int]:",
       ("Return the numbers of $a0 sorted from largest to smallest.",),
       "    return sorted($a0, reverse=True)", _ints, _size, lambda k: [[[]], [[1]], [[1, 2]]]),
    Op("by_length", 0.3, ("sort_by_length", "order_by_length"), (WS,), "def $name($a0: list[str]) -> list[str]:",
       ("Return the strings of $a0 sorted by length, shortest first; strings of equal length keep their original order.",),
       "    return sorted($a0, key=len)", _words, _size, lambda k: [[[]], [["bb", "a"]], [["b", "a"]]]),
    Op("by_abs", 0.5, ("sort_by_abs", "order_by_magnitude"), (XS,), "def $name($a0: list[int]) -> list[int]:",
       ("Sort $a0 by absolute value, smallest first; when two numbers have the same absolute value put the negative one first.",),
       "    return sorted($a0, key=lambda x: (abs(x), x))", _ints, _size, lambda k: [[[]], [[3, -3]], [[-1, 0, 2]]]),
    Op("merge_sorted", 0.7, ("merge_sorted", "merge_lists"), (("a", "left", "xs"), ("b", "right", "ys")),
       "def $name($a0: list[int], $a1: list[int]) -> list[int]:",
       ("$a0 and $a1 are each sorted in increasing order. Return one sorted list with all their elements, without "
        "calling sort or sorted.",),
       "    i = j = 0\n    out = []\n    while i < len($a0) and j < len($a1):\n        if $a0[i] <= $a1[j]:\n            out.append($a0[i])\n"
       "            i += 1\n        else:\n            out.append($a1[j])\n            j += 1\n    return out + $a0[i:] + $a1[j:]",
       lambda k, r: [sorted(int_list(r, k["size"], -9, 9)), sorted(int_list(r, k["size"], -9, 9))], _size,
       lambda k: [[[], []], [[1], []], [[], [1]], [[1, 3], [2]], [[2], [1, 3]]]),
    Op("by_vowels_then_alpha", 0.9, ("sort_by_vowels", "vowel_order"), (WS,), "def $name($a0: list[str]) -> list[str]:",
       ("Sort the words of $a0 by number of vowels, most vowels first; break ties by length, shorter first, and "
        "then alphabetically. Remove duplicate words.",),
       "    def vowels(w):\n        return sum(1 for c in w if c in 'aeiou')\n    return sorted(set($a0), key=lambda w: (-vowels(w), len(w), w))",
       _words, _size, lambda k: [[[]], [["a", "a"]], [["bb", "ab", "b"]], [["ae", "oi", "u"]]]),
)

FAMILY = register(MenuFamily("sorting", ("sort", "list"), OPS))
