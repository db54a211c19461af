"""Simulation of a walker on a grid from a string of moves U, D, L, R."""

from __future__ import annotations

from spade.generate.menu import MenuFamily, Op, span
from spade.generate.registry import register

MOVES = ("moves", "path", "steps", "commands")
STEP = "    step = {'U': (0, 1), 'D': (0, -1), 'L': (-1, 0), 'R': (1, 0)}\n"


def _size(d, rng):
    return {"size": span(d, 4, 16)}


def _moves(knobs, rng):
    return ["".join(rng.choice("UDLR") for _ in range(rng.randint(1, knobs["size"])))]


EDGES = lambda k: [[""], ["U"], ["LL"], ["UDUD"], ["RRRR"]]  # noqa: E731

OPS = (
    Op("count_up", 0.0, ("count_up_moves", "ups"), (MOVES,), "def $name($a0: str) -> int:",
       ("Return how many times the letter 'U' appears in the move string $a0.", "Count the 'U' moves in the string $a0 and return the count."),
       "    return $a0.count('U')", _moves, _size, EDGES),
    Op("final_pos", 0.3, ("final_position", "walk", "end_point"), (MOVES,), "def $name($a0: str) -> list[int]:",
       ("Start at [0, 0]. For each letter of $a0, U adds 1 to y, D subtracts 1 from y, R adds 1 to x and L subtracts "
        "1 from x. Return the final position as [x, y].",),
       STEP + "    x = y = 0\n    for m in $a0:\n        dx, dy = step[m]\n        x += dx\n        y += dy\n    return [x, y]",
       _moves, _size, EDGES),
    Op("returns_home", 0.4, ("returns_home", "back_to_start", "is_loop"), (MOVES,), "def $name($a0: str) -> bool:",
       ("Starting at the origin and following the moves in $a0 (U, D, L, R, one unit each), return True if you end "
        "back at the origin.",),
       "    return $a0.count('U') == $a0.count('D') and $a0.count('L') == $a0.count('R')", _moves, _size, EDGES),
    Op("distinct_cells", 0.6, ("cells_visited", "count_visited"), (MOVES,), "def $name($a0: str) -> int:",
       ("Walk from (0, 0) following $a0 (U, D, L, R, one unit each). Return the number of distinct cells visited, "
        "including the start.",),
       STEP + "    x = y = 0\n    seen = {(0, 0)}\n    for m in $a0:\n        dx, dy = step[m]\n        x += dx\n        y += dy\n"
       "        seen.add((x, y))\n    return len(seen)", _moves, _size, EDGES),
    Op("bounded_walk", 0.85, ("walk_in_box", "bounded_walk"), (MOVES,), "def $name($a0: str) -> list[int]:",
       ("Walk on a $w by $w board with cells [x, y] for 0 <= x, y < $w, starting at [0, 0]. U adds 1 to y, D subtracts "
        "1, R adds 1 to x, L subtracts 1. A move that would leave the board is ignored. Return [x, y, ignored] where "
        "ignored counts the ignored moves.",),
       STEP + "    x = y = ignored = 0\n    for m in $a0:\n        dx, dy = step[m]\n        nx, ny = x + dx, y + dy\n"
       "        if 0 <= nx < $w and 0 <= ny < $w:\n            x, y = nx, ny\n        else:\n            ignored += 1\n    return [x, y, ignored]",
       _moves, lambda d, r: {"size": span(d, 4, 16), "w": r.randint(2, 5)},
       lambda k: [[""], ["D"], ["L"], ["U" * (k["w"] + 1)], ["R" * k["w"] + "L"]]),
)

FAMILY = register(MenuFamily("grid_walk", ("simulation", "string"), OPS))
