"""Recursion over nested lists: flatten, nested sums, depth, counting leaves."""

from __future__ import annotations

import random

from spade.generate.menu import MenuFamily, Op, span
from spade.generate.registry import register

XS = ("nested", "items", "data", "xs")


def _depth(d, rng):
    return {"depth": span(d, 2, 5)}


def _nest(rng: random.Random, depth: int) -> list:
    out: list = []
    for _ in range(rng.randint(0, 4)):
        if depth > 0 and rng.random() < 0.4:
            out.append(_nest(rng, depth - 1))
        else:
            out.append(rng.randint(-9, 9))
    return out


def _gen(knobs, rng):
    return [_nest(rng, knobs["depth"])]


EDGES = lambda k: [[[]], [[[]]], [[1, [2, [3]]]], [[[[-4]], 5]]]  # noqa: E731

OPS = (
    Op("flat_sum", 0.0, ("nested_sum", "deep_sum", "sum_nested"), (XS,), "def $name($a0: list) -> int:",
       ("Return the sum of all the integers in $a0, a list that may contain integers and nested lists.",),
       "    total = 0\n    for x in $a0:\n        if isinstance(x, list):\n            total += $name(x)\n        else:\n            total += x\n    return total",
       _gen, _depth, EDGES),
    Op("flatten", 0.3, ("flatten", "flatten_list", "deep_flatten"), (XS,), "def $name($a0: list) -> list[int]:",
       ("Flatten $a0, a list of integers and nested lists, into one flat list of integers in left-to-right order.",),
       "    out = []\n    for x in $a0:\n        if isinstance(x, list):\n            out.extend($name(x))\n        else:\n            out.append(x)\n    return out",
       _gen, _depth, EDGES),
    Op("depth", 0.5, ("max_depth", "nesting_depth", "depth_of"), (XS,), "def $name($a0: list) -> int:",
       ("Return the nesting depth of the list $a0: a list with no lists inside has depth 1, [[1]] has depth 2.",),
       "    best = 1\n    for x in $a0:\n        if isinstance(x, list):\n            best = max(best, 1 + $name(x))\n    return best",
       _gen, _depth, EDGES),
    Op("weighted_sum", 0.8, ("depth_weighted_sum", "weighted_nested_sum"), (XS,), "def $name($a0: list) -> int:",
       ("Return the sum of every integer in the nested list $a0 multiplied by its depth: integers directly in $a0 "
        "count once, those one list deeper count twice, and so on.",),
       "    def walk(part, depth):\n        total = 0\n        for x in part:\n            if isinstance(x, list):\n                total += walk(x, depth + 1)\n"
       "            else:\n                total += x * depth\n        return total\n    return walk($a0, 1)",
       _gen, _depth, EDGES),
)

FAMILY = register(MenuFamily("nested_lists", ("recursion", "list"), OPS))
