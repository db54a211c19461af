"""Dynamic programming over counts of ways: stairs, grid paths, paths around obstacles."""

from __future__ import annotations

from spade.generate.menu import MenuFamily, Op, span
from spade.generate.registry import register


def _mag(d, rng):
    return {"high": span(d, 8, 25)}


def _step_set(d, rng):
    steps = sorted(rng.sample([1, 2, 3, 4, 5], 2))
    return {"high": span(d, 8, 25), "steps": steps, "moves": f"{steps[0]} or {steps[1]}"}


def _walls(knobs, rng):
    rows, cols = rng.randint(1, 6), rng.randint(1, 6)
    return [[[1 if rng.random() < 0.2 else 0 for _ in range(cols)] for _ in range(rows)]]


OPS = (
    Op("sum_to_n", 0.0, ("sum_to_n", "triangle_number", "sum_up_to"), (("n", "k"),), "def $name($a0: int) -> int:",
       ("Return the sum of all integers from 1 to $a0 (0 when $a0 is 0).",),
       "    total = 0\n    for i in range(1, $a0 + 1):\n        total += i\n    return total",
       lambda k, r: [r.randint(0, k["high"] * 4)], _mag, lambda k: [[0], [1], [2]]),
    Op("stairs", 0.3, ("climb_stairs", "count_ways", "stair_ways"), (("n", "steps"),), "def $name($a0: int) -> int:",
       ("You climb a staircase of $a0 steps taking 1 or 2 steps at a time. Return the number of distinct ways to reach "
        "the top (1 way for 0 steps).",),
       "    a, b = 1, 1\n    for _ in range($a0):\n        a, b = b, a + b\n    return a",
       lambda k, r: [r.randint(0, k["high"])], _mag, lambda k: [[0], [1], [2], [3]]),
    Op("stairs_set", 0.6, ("ways_with_steps", "count_climbs"), (("n", "total"),), "def $name($a0: int) -> int:",
       ("Return the number of ordered ways to climb $a0 steps when each move climbs either $moves steps. "
        "There is 1 way to climb 0 steps.",),
       "    ways = [1] + [0] * $a0\n    for i in range(1, $a0 + 1):\n        for s in $steps:\n            if s <= i:\n                ways[i] += ways[i - s]\n    return ways[$a0]",
       lambda k, r: [r.randint(0, k["high"])],
       _step_set,
       lambda k: [[0], [1], [2], [5]]),
    Op("grid_paths", 0.7, ("grid_paths", "unique_paths"), (("rows", "m"), ("cols", "n")), "def $name($a0: int, $a1: int) -> int:",
       ("Return the number of paths from the top-left to the bottom-right cell of a $a0 by $a1 grid moving only right "
        "or down. Both sizes are at least 1.",),
       "    row = [1] * $a1\n    for _ in range($a0 - 1):\n        for j in range(1, $a1):\n            row[j] += row[j - 1]\n    return row[-1]",
       lambda k, r: [r.randint(1, k["high"] // 2), r.randint(1, k["high"] // 2)], _mag, lambda k: [[1, 1], [1, 5], [5, 1], [2, 2], [3, 3]]),
    Op("obstacle_paths", 0.9, ("paths_with_walls", "obstacle_paths"), (("grid", "board"),),
       "def $name($a0: list[list[int]]) -> int:",
       ("$a0 is a non-empty grid of 0 (free) and 1 (wall). Count the paths from the top-left cell to the bottom-right "
        "cell moving only right or down through free cells; return 0 if either end is a wall.",),
       "    rows, cols = len($a0), len($a0[0])\n    ways = [[0] * cols for _ in range(rows)]\n    for i in range(rows):\n"
       "        for j in range(cols):\n            if $a0[i][j] == 1:\n                continue\n            if i == 0 and j == 0:\n"
       "                ways[i][j] = 1\n                continue\n            up = ways[i - 1][j] if i > 0 else 0\n"
       "            left = ways[i][j - 1] if j > 0 else 0\n            ways[i][j] = up + left\n    return ways[-1][-1]",
       _walls,
       _mag, lambda k: [[[[0]]], [[[1]]], [[[0, 0], [0, 0]]], [[[0, 1], [0, 0]]], [[[0, 0], [0, 1]]], [[[0, 0, 0], [1, 1, 0]]]]),
)

FAMILY = register(MenuFamily("dp_paths", ("dynamic_programming", "counting"), OPS))
