"""Read a grid of open cells and walls and answer a search question: walls per row, cells reachable from S, the
shortest path from S to E (4 or 8 directions), the number of separate open regions. At difficulty 0 the grid is a
single row with no header and the task is one step (count its walls or its open cells), which the embedded 135M model
can write."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from spade.generate.family import Variant
from spade.generate.menu import span
from spade.generate.registry import register
from spade.kinds.program.families.base import (
    SIGNATURE,
    ProgramFamily,
    lines,
    pick_level,
    starter,
)

_READ = ("import sys\nfrom collections import deque\n\ndata = sys.stdin.read().split()\n"
         "rows, cols = int(data[0]), int(data[1])\ngrid = data[2:2 + rows]\n")
_BFS = ("\n\ndef bfs(start, moves):\n    dist = {start: 0}\n    queue = deque([start])\n    while queue:\n"
        "        r, c = queue.popleft()\n        for dr, dc in moves:\n            nr, nc = r + dr, c + dc\n"
        "            if 0 <= nr < rows and 0 <= nc < cols and grid[nr][nc] != '#' and (nr, nc) not in dist:\n"
        "                dist[(nr, nc)] = dist[(r, c)] + 1\n                queue.append((nr, nc))\n    return dist\n\n\n"
        "def find(ch):\n    return next((r, c) for r in range(rows) for c in range(cols) if grid[r][c] == ch)\n\n\n"
        "FOUR = [(1, 0), (-1, 0), (0, 1), (0, -1)]\n"
        "EIGHT = FOUR + [(1, 1), (1, -1), (-1, 1), (-1, -1)]\n")
# One row of cells, no header line, no S or E: the one-step tier at difficulty 0.
ROW_FORMAT = "The input is one line of characters: '.' for an open cell and '#' for a wall (at most {n} of them)."
ROW_OPS = {
    "count_walls": ("Print the number of walls.", "print(sys.stdin.read().strip().count('#'))\n"),
    "count_open": ("Print the number of open cells.", "print(sys.stdin.read().strip().count('.'))\n"),
}
OPS = {
    "row_walls": ("For every row, in order, print the number of walls in it.",
                  "for row in grid:\n    print(row.count('#'))\n"),
    "reachable": ("Print how many cells that are not walls can be reached from S (counting S itself), moving one "
                  "step at a time up, down, left or right.", "print(len(bfs(find('S'), FOUR)))\n"),
    "shortest": ("Print the smallest number of steps from S to E, moving one step at a time up, down, left or right "
                 "and never onto a wall, or -1 if E cannot be reached.",
                 "print(bfs(find('S'), FOUR).get(find('E'), -1))\n"),
    "regions": ("Cells that are not walls form regions: two such cells side by side (up, down, left or right) belong "
                "to the same region. Print the number of regions.",
                "seen = set()\ncount = 0\nfor r in range(rows):\n    for c in range(cols):\n"
                "        if grid[r][c] != '#' and (r, c) not in seen:\n            count += 1\n"
                "            seen.update(bfs((r, c), FOUR))\nprint(count)\n"),
    "shortest8": ("Print the smallest number of steps from S to E, where one step moves to any of the 8 neighbouring "
                  "cells (diagonals included) and never onto a wall, or -1 if E cannot be reached.",
                  "print(bfs(find('S'), EIGHT).get(find('E'), -1))\n"),
}
LEVELS = ((0.0, "count_walls"), (0.0, "count_open"), (0.1, "row_walls"), (0.2, "reachable"), (0.45, "shortest"),
          (0.65, "regions"), (0.85, "shortest8"))


class Grid(ProgramFamily):
    name = "program_grid"
    tags = ("program", "graph", "bfs", "grid")

    def variant(self, difficulty: float, rng: random.Random) -> Variant:
        op = pick_level(LEVELS, difficulty, rng)
        knobs = {"op": op, "rows_max": span(difficulty, 3, 10), "cols_max": span(difficulty, 3, 12),
                 "walls": round(0.2 + 0.2 * difficulty, 2)}
        if op in ROW_OPS:
            knobs["cols_max"], knobs["starter"] = span(difficulty, 8, 30), starter(difficulty, "row = input()")
            text, body = ROW_OPS[op]
            return Variant(f"{ROW_FORMAT.format(n=knobs['cols_max'])} {text}", SIGNATURE, "", "import sys\n\n" + body,
                           knobs)
        text, body = OPS[op]
        fmt = (f"The first line of the input holds two integers R and C (2 <= R <= {knobs['rows_max']}, "
               f"2 <= C <= {knobs['cols_max']}); each of the next R lines holds C characters: '.' for an open cell, "
               "'#' for a wall, 'S' for the start and 'E' for the end (exactly one of each, both open cells).")
        reference = _READ + ("" if op == "row_walls" else _BFS) + "\n" + body
        return Variant(f"{fmt} {text}", SIGNATURE, "", reference, knobs)

    def random_input(self, knobs: Mapping[str, Any], rng: random.Random) -> list[Any]:
        if knobs["op"] in ROW_OPS:
            walls, width = rng.choice((0.2, 0.5, 0.8)), rng.randint(1, knobs["cols_max"])
            return [lines("".join("#" if rng.random() < walls else "." for _ in range(width)))]
        rows, cols = rng.randint(2, knobs["rows_max"]), rng.randint(2, knobs["cols_max"])
        cells = [["#" if rng.random() < knobs["walls"] else "." for _ in range(cols)] for _ in range(rows)]
        spots = rng.sample([(r, c) for r in range(rows) for c in range(cols)], 2)
        for (r, c), ch in zip(spots, "SE"):
            cells[r][c] = ch
        return [render(cells)]

    def edge_inputs(self, knobs: Mapping[str, Any]) -> list[list[Any]]:
        if knobs["op"] in ROW_OPS:
            return [[lines(row)] for row in (".", "#", "#.#", "....", "##.##", ".#..#.")]
        grids = [["S#", "#E"], ["S.", ".E"], ["S#E", "...", "###"], ["S.#", "##.", "E.#"],
                 ["S...", "###.", "E...", "####"]]
        return [[render([list(row) for row in g])] for g in grids]


def render(cells: list[list[str]]) -> str:
    return lines(f"{len(cells)} {len(cells[0])}", *("".join(row) for row in cells))


FAMILY = register(Grid())
