"""Digits of integers: digit sums, digit counts, reversal, digital roots and base conversion."""

from __future__ import annotations

from spade.generate.menu import MenuFamily, Op, span
from spade.generate.registry import register

N = ("n", "num", "number", "x")


def _mag(d, rng):
    return {"digits": span(d, 3, 9)}


def _nat(knobs, rng):
    return [rng.randint(0, 10 ** rng.randint(1, knobs["digits"]))]


def _signed(knobs, rng):
    return [rng.choice([-1, 1]) * rng.randint(0, 10 ** rng.randint(1, knobs["digits"]))]


OPS = (
    Op("digit_sum", 0.0, ("digit_sum", "sum_of_digits", "add_digits"), (N,), "def $name($a0: int) -> int:",
       ("Return the sum of the digits of the non-negative integer $a0.",),
       "    total = 0\n    while $a0 > 0:\n        total += $a0 % 10\n        $a0 //= 10\n    return total",
       _nat, _mag, lambda k: [[0], [7], [10], [999]]),
    Op("count_digits", 0.0, ("count_digits", "num_digits", "digit_count"), (N,), "def $name($a0: int) -> int:",
       ("Return how many digits the non-negative integer $a0 has (0 has one digit).",),
       "    return len(str($a0))", _nat, _mag, lambda k: [[0], [9], [10], [100]]),
    Op("reverse_digits", 0.3, ("reverse_digits", "reverse_number", "flip_digits"), (N,), "def $name($a0: int) -> int:",
       ("Return the integer whose digits are those of $a0 in reverse order, keeping the sign; e.g. -120 becomes -21.",),
       "    sign = -1 if $a0 < 0 else 1\n    return sign * int(str(abs($a0))[::-1])", _signed, _mag,
       lambda k: [[0], [-120], [5], [-7], [1000]]),
    Op("digital_root", 0.5, ("digital_root", "repeated_digit_sum"), (N,), "def $name($a0: int) -> int:",
       ("Repeatedly replace the non-negative integer $a0 by the sum of its digits until one digit is left; return that digit.",),
       "    while $a0 >= 10:\n        $a0 = sum(int(c) for c in str($a0))\n    return $a0", _nat, _mag,
       lambda k: [[0], [9], [10], [99], [38]]),
    Op("to_base", 0.7, ("to_base", "convert_base", "in_base"), (N,), "def $name($a0: int) -> str:",
       ("Return the non-negative integer $a0 written in base $b as a string of digits (no prefix); 0 is '0'.",),
       "    if $a0 == 0:\n        return '0'\n    out = ''\n    while $a0 > 0:\n        out = str($a0 % $b) + out\n        $a0 //= $b\n    return out",
       _nat, lambda d, r: {"digits": span(d, 3, 9), "b": r.randint(2, 9)}, lambda k: [[0], [1], [k["b"]], [k["b"] - 1]]),
    Op("armstrong", 0.9, ("is_armstrong", "narcissistic", "digit_power_sum_equal"), (N,), "def $name($a0: int) -> bool:",
       ("Return True if the non-negative integer $a0 equals the sum of its digits each raised to the power of the "
        "number of digits (e.g. 153 = 1**3 + 5**3 + 3**3), else False.",),
       "    s = str($a0)\n    return $a0 == sum(int(c) ** len(s) for c in s)",
       lambda k, r: [r.choice([153, 370, 371, 407, 1634, 8208, 9474, r.randint(0, 10 ** k["digits"])])], _mag,
       lambda k: [[0], [1], [10], [153], [154]]),
)

FAMILY = register(MenuFamily("digits", ("math", "number_theory", "digits"), OPS))
