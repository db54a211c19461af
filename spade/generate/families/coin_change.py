"""Coins and amounts: making change greedily, counting combinations, fewest coins."""

from __future__ import annotations

from spade.generate.menu import MenuFamily, Op, span
from spade.generate.registry import register

AMT = ("amount", "total", "n", "cents")


def _coins(d, rng):
    coins = sorted(rng.sample([1, 2, 3, 5, 7, 10, 25], rng.randint(2, 4)))
    return {"high": span(d, 20, 80), "coins": coins}


OPS = (
    Op("coins_needed", 0.0, ("count_coins", "num_coins", "coins_for"), (AMT,), "def $name($a0: int) -> int:",
       ("Return how many coins of value $c are needed to pay at least $a0 cents.",),
       "    count = 0\n    while count * $c < $a0:\n        count += 1\n    return count",
       lambda k, r: [r.randint(0, k["high"])], lambda d, r: {"high": span(d, 20, 80), "c": r.choice([2, 5, 10])},
       lambda k: [[0], [1], [k["c"]], [k["c"] + 1]]),
    Op("greedy_change", 0.3, ("make_change", "greedy_change", "change_coins"), (AMT,), "def $name($a0: int) -> list[int]:",
       ("Make change for $a0 using coins of 25, 10, 5 and 1: always take the largest coin that fits, and return the "
        "list of coins taken, largest first.",),
       "    out = []\n    for c in [25, 10, 5, 1]:\n        while $a0 >= c:\n            out.append(c)\n            $a0 -= c\n    return out",
       lambda k, r: [r.randint(0, k["high"])], _coins, lambda k: [[0], [1], [25], [30], [41]]),
    Op("ways", 0.6, ("coin_combinations", "change_ways", "count_change"), (AMT,), "def $name($a0: int) -> int:",
       ("Return the number of ways to make $a0 from coins with values $coins, using each value any number of times; "
        "the order of coins does not matter. There is 1 way to make 0.",),
       "    ways = [1] + [0] * $a0\n    for c in $coins:\n        for v in range(c, $a0 + 1):\n            ways[v] += ways[v - c]\n    return ways[$a0]",
       lambda k, r: [r.randint(0, k["high"])], _coins, lambda k: [[0], [1], [k["coins"][0]], [k["coins"][-1] + 1]]),
    Op("fewest", 0.8, ("fewest_coins", "min_coins"), (AMT,), "def $name($a0: int) -> int:",
       ("Return the smallest number of coins with values $coins (each usable any number of times) that add up to "
        "exactly $a0, or -1 if it cannot be done.",),
       "    inf = $a0 + 1\n    best = [0] + [inf] * $a0\n    for v in range(1, $a0 + 1):\n        for c in $coins:\n"
       "            if c <= v and best[v - c] + 1 < best[v]:\n                best[v] = best[v - c] + 1\n    return best[$a0] if best[$a0] < inf else -1",
       lambda k, r: [r.randint(0, k["high"])], _coins, lambda k: [[0], [1], [k["coins"][-1]], [k["coins"][0] + k["coins"][-1]]]),
)

FAMILY = register(MenuFamily("coin_change", ("dynamic_programming", "greedy"), OPS))
