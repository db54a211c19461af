"""Matrices as lists of rows: row sums, transpose, diagonal, rotation, spiral order, products."""

from __future__ import annotations

from spade.generate.draws import grid
from spade.generate.menu import MenuFamily, Op, span
from spade.generate.registry import register

M = ("matrix", "grid", "m", "table")
MSIG = "def $name($a0: list[list[int]]) -> list[list[int]]:"


def _size(d, rng):
    return {"size": span(d, 3, 6)}


def _rect(knobs, rng):
    return [grid(rng, rng.randint(1, knobs["size"]), rng.randint(1, knobs["size"]))]


def _square(knobs, rng):
    n = rng.randint(1, knobs["size"])
    return [grid(rng, n, n)]


OPS = (
    Op("row_sums", 0.0, ("row_sums", "sum_rows", "totals_per_row"), (M,), "def $name($a0: list[list[int]]) -> list[int]:",
       ("Return a list with the sum of each row of the matrix $a0.",),
       "    return [sum(row) for row in $a0]", _rect, _size, lambda k: [[[]], [[[1]]], [[[1, -1], [2, 3]]]]),
    Op("total", 0.0, ("matrix_sum", "grid_total", "sum_all"), (M,), "def $name($a0: list[list[int]]) -> int:",
       ("Return the sum of every number in the matrix $a0 (a list of rows).",),
       "    total = 0\n    for row in $a0:\n        for x in row:\n            total += x\n    return total",
       _rect, _size, lambda k: [[[]], [[[]]], [[[1, 2], [3, 4]]]]),
    Op("transpose", 0.3, ("transpose", "flip_matrix"), (M,), MSIG,
       ("Return the transpose of the non-empty rectangular matrix $a0: row i of the result is column i of $a0.",),
       "    return [[row[j] for row in $a0] for j in range(len($a0[0]))]", _rect, _size,
       lambda k: [[[[1]]], [[[1, 2, 3]]], [[[1], [2]]]]),
    Op("diagonal", 0.3, ("trace", "diagonal_sum"), (M,), "def $name($a0: list[list[int]]) -> int:",
       ("Return the sum of the main diagonal (top-left to bottom-right) of the square matrix $a0.",),
       "    return sum($a0[i][i] for i in range(len($a0)))", _square, _size, lambda k: [[[]], [[[5]]], [[[1, 2], [3, 4]]]]),
    Op("rotate", 0.6, ("rotate_clockwise", "rotate_90"), (M,), MSIG,
       ("Rotate the non-empty rectangular matrix $a0 by 90 degrees clockwise and return the result.",),
       "    return [list(row) for row in zip(*$a0[::-1])]", _rect, _size, lambda k: [[[[1]]], [[[1, 2]]], [[[1, 2], [3, 4]]]]),
    Op("spiral", 0.8, ("spiral_order", "spiral"), (M,), "def $name($a0: list[list[int]]) -> list[int]:",
       ("Return the elements of the rectangular matrix $a0 in spiral order: along the top row left to right, down the "
        "right column, back along the bottom row, up the left column, then inward. An empty matrix gives [].",),
       "    out = []\n    rows = [list(r) for r in $a0]\n    while rows:\n        out += rows.pop(0)\n        rows = [list(r) for r in zip(*rows)][::-1]\n    return out",
       _rect, _size, lambda k: [[[]], [[[1]]], [[[1, 2], [3, 4]]], [[[1], [2], [3]]]]),
    Op("multiply", 0.9, ("mat_mul", "matrix_product"), (("a", "left"), ("b", "right")),
       "def $name($a0: list[list[int]], $a1: list[list[int]]) -> list[list[int]]:",
       ("Return the matrix product of $a0 (n by m) and $a1 (m by p), both non-empty.",),
       "    return [[sum($a0[i][k] * $a1[k][j] for k in range(len($a1))) for j in range(len($a1[0]))] for i in range(len($a0))]",
       lambda k, r: (lambda n, m, p: [grid(r, n, m, -5, 5), grid(r, m, p, -5, 5)])(r.randint(1, k["size"]), r.randint(1, k["size"]), r.randint(1, k["size"])),
       _size, lambda k: [[[[2]], [[3]]], [[[1, 2]], [[3], [4]]], [[[1], [2]], [[3, 4]]]]),
)

FAMILY = register(MenuFamily("matrix_basic", ("matrix", "list"), OPS))
