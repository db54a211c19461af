"""Read a list of integers (one bare line, a count then one line, one per line, or several test cases) and print a
statistic of it: the sum, the maximum, the range, how many exceed the mean, the second largest value, the longest
increasing run. At difficulty 0 the input is the bare line (no count) and the statistic is the sum or the maximum:
one step, which the embedded 135M model can write."""

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

OPS = {
    "sum": ("Print the sum of the numbers.", "    return str(sum(nums))"),
    "max": ("Print the largest number.", "    return str(max(nums))"),
    "range": ("Print the difference between the largest and the smallest number.",
              "    return str(max(nums) - min(nums))"),
    "sum_max": ("Print the sum of the numbers and the largest number, separated by a space.",
                "    return f'{sum(nums)} {max(nums)}'"),
    "above_mean": ("Print how many of the numbers are strictly greater than their average.",
                   "    total = sum(nums)\n    return str(sum(1 for x in nums if x * len(nums) > total))"),
    "second_max": ("Print the second largest distinct value, or NONE when all the numbers are equal.",
                   "    distinct = sorted(set(nums))\n    return str(distinct[-2]) if len(distinct) > 1 else 'NONE'"),
    "longest_run": ("Print the length of the longest run of consecutive numbers in which each is strictly greater "
                    "than the one before it (a single number is a run of length 1).",
                    "    best = run = 1\n    for i in range(1, len(nums)):\n        run = run + 1 if nums[i] > nums[i - 1] "
                    "else 1\n        best = max(best, run)\n    return str(best)"),
}
LEVELS = ((0.0, "sum"), (0.0, "max"), (0.2, "range"), (0.35, "sum_max"), (0.5, "above_mean"), (0.65, "second_max"),
          (0.8, "longest_run"))
LAYOUTS = ((0.0, "flat"), (0.15, "line"), (0.3, "lines"), (0.55, "cases"))

_FORMAT = {
    "flat": "The input is one line holding between 1 and {n} integers separated by spaces.",
    "line": "The first line of the input holds an integer N (1 <= N <= {n}); the second line holds N integers "
            "separated by spaces.",
    "lines": "The first line of the input holds an integer N (1 <= N <= {n}); each of the next N lines holds one "
             "integer.",
    "cases": "The first line of the input holds T, the number of test cases. Each test case is a line holding N "
             "(1 <= N <= {n}) followed by a line of N integers separated by spaces. Answer every test case on its "
             "own line, in order.",
}
_FLAT = "print(solve([int(x) for x in sys.stdin.read().split()]))\n"
_SINGLE = "data = sys.stdin.read().split()\nn = int(data[0])\nprint(solve([int(x) for x in data[1:1 + n]]))\n"
_CASES = ("data = sys.stdin.read().split()\nt = int(data[0])\npos = 1\nanswers = []\nfor _ in range(t):\n"
          "    n = int(data[pos])\n    answers.append(solve([int(x) for x in data[pos + 1:pos + 1 + n]]))\n"
          "    pos += 1 + n\nprint('\\n'.join(answers))\n")

_READERS = {"flat": _FLAT, "cases": _CASES}


class Numbers(ProgramFamily):
    name = "program_numbers"
    tags = ("program", "array", "parsing")

    def variant(self, difficulty: float, rng: random.Random) -> Variant:
        op, layout = pick_level(LEVELS, difficulty, rng), pick_level(LAYOUTS, difficulty, rng)
        knobs = {"op": op, "layout": layout, "n_max": span(difficulty, 5, 30),
                 "low": 0 if difficulty < 0.4 else -span(difficulty, 10, 500), "high": span(difficulty, 20, 1000)}
        if layout == "flat":
            knobs["starter"] = starter(difficulty, "nums = [int(x) for x in input().split()]")
        text, body = OPS[op]
        description = f"{_FORMAT[layout].format(n=knobs['n_max'])} {text}"
        reference = f"import sys\n\n\ndef solve(nums):\n{body}\n\n\n{_READERS.get(layout, _SINGLE)}"
        return Variant(description, SIGNATURE, "", reference, knobs)

    def random_input(self, knobs: Mapping[str, Any], rng: random.Random) -> list[Any]:
        def one() -> list[int]:
            n = rng.randint(1, knobs["n_max"])
            if rng.random() < 0.2:  # repeated values, where ties and "distinct" matter
                pool = [rng.randint(knobs["low"], knobs["high"]) for _ in range(2)]
                return [rng.choice(pool) for _ in range(n)]
            return [rng.randint(knobs["low"], knobs["high"]) for _ in range(n)]

        cases = [one() for _ in range(rng.randint(1, 4) if knobs["layout"] == "cases" else 1)]
        return [render(knobs["layout"], cases)]

    def edge_inputs(self, knobs: Mapping[str, Any]) -> list[list[Any]]:
        lo, hi, n = knobs["low"], knobs["high"], knobs["n_max"]
        shapes = [[hi], [lo, lo], [lo, hi, lo], list(range(n, 0, -1)), [hi - 1, hi, hi], [lo + 1] * n]
        if knobs["layout"] == "cases":
            return [[render("cases", shapes[:3])], [render("cases", shapes[3:])], [render("cases", [[hi]])]]
        return [[render(knobs["layout"], [s])] for s in shapes]


def render(layout: str, cases: list[list[int]]) -> str:
    """The stdin text of `cases` (one case unless the layout is 'cases')."""
    if layout == "cases":
        return lines(len(cases), *(row for nums in cases for row in (len(nums), " ".join(map(str, nums)))))
    nums = cases[0]
    if layout == "flat":
        return lines(" ".join(map(str, nums)))
    if layout == "lines":
        return lines(len(nums), *nums)
    return lines(len(nums), " ".join(map(str, nums)))


FAMILY = register(Numbers())
