"""Parsing arithmetic text: digits in a string, sums of tokens, + and - expressions, then * precedence."""

from __future__ import annotations

from spade.generate.menu import MenuFamily, Op, span
from spade.generate.registry import register

TEXT = ("expr", "s", "text", "expression")


def _size(d, rng):
    return {"size": span(d, 2, 8)}


def _expr(knobs, rng, ops="+-"):
    out = str(rng.randint(0, 30))
    for _ in range(rng.randint(0, knobs["size"])):
        out += rng.choice(ops) + str(rng.randint(0, 30))
    return [out]


OPS = (
    Op("digit_total", 0.0, ("sum_digits_in_text", "add_digit_chars", "digit_total"), (TEXT,), "def $name($a0: str) -> int:",
       ("Return the sum of all digit characters in the string $a0; other characters are ignored.",),
       "    return sum(int(c) for c in $a0 if c.isdigit())",
       lambda k, r: ["".join(r.choice("ab1 2x9-") for _ in range(r.randint(0, 4 * k["size"])))], _size,
       lambda k: [[""], ["abc"], ["9"], ["1a2"]]),
    Op("csv_sum", 0.3, ("sum_csv", "add_numbers_in_text", "total_of_list_text"), (TEXT,), "def $name($a0: str) -> int:",
       ("$a0 holds integers separated by commas, maybe with spaces around them, e.g. '3, -4,10'. Return their sum; "
        "an empty or blank string gives 0.",),
       "    total = 0\n    for part in $a0.split(','):\n        if part.strip():\n            total += int(part)\n    return total",
       lambda k, r: [",".join(" " * r.randint(0, 1) + str(r.randint(-20, 20)) for _ in range(r.randint(1, k["size"] + 2)))], _size,
       lambda k: [[""], ["  "], ["5"], ["-1, 1"]]),
    Op("plus_minus", 0.5, ("evaluate", "calc", "eval_plus_minus"), (TEXT,), "def $name($a0: str) -> int:",
       ("$a0 is an expression of non-negative integers joined by + and - with no spaces, like '12-3+4'. Evaluate it "
        "left to right without using eval.",),
       "    total = 0\n    num = 0\n    sign = 1\n    for c in $a0 + '+':\n        if c.isdigit():\n            num = num * 10 + int(c)\n"
       "        else:\n            total += sign * num\n            num = 0\n            sign = 1 if c == '+' else -1\n    return total",
       _expr, _size, lambda k: [["0"], ["7"], ["1-2"], ["10+20-5"]]),
    Op("with_times", 0.8, ("evaluate_expression", "calculate"), (TEXT,), "def $name($a0: str) -> int:",
       ("$a0 is an expression of non-negative integers with +, - and * and no spaces, like '2+3*4-1'. Evaluate it with "
        "the usual precedence (* before + and -) without using eval.",),
       "    total = 0\n    for i, term in enumerate($a0.replace('-', '+-').split('+')):\n        if term == '':\n            continue\n"
       "        sign = -1 if term.startswith('-') else 1\n        product = 1\n        for f in term.lstrip('-').split('*'):\n"
       "            product *= int(f)\n        total += sign * product\n    return total",
       lambda k, r: _expr(k, r, "+-*"), _size, lambda k: [["0"], ["2*3"], ["1-2*3"], ["2*0+5"], ["10-2-3"]]),
)

FAMILY = register(MenuFamily("arithmetic_parse", ("parsing", "string", "math"), OPS))
