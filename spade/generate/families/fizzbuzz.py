"""FizzBuzz and its relatives: label numbers by divisibility, with more rules at higher difficulty."""

from __future__ import annotations

from spade.generate.menu import MenuFamily, Op, span
from spade.generate.registry import register

N = ("n", "num", "x")


def _mag(d, rng):
    return {"high": span(d, 20, 60)}


def _rules(d, rng):
    a, b = rng.sample([2, 3, 4, 5, 7], 2)
    wa, wb = rng.sample(["Fizz", "Buzz", "Bang", "Pop", "Zap"], 2)
    return {"high": span(d, 20, 60), "a": a, "b": b, "wa": wa, "wb": wb}


OPS = (
    Op("one_label", 0.0, ("fizz", "label", "fizz_or_number"), (N,), "def $name($a0: int) -> str:",
       ("Return 'Fizz' if $a0 is divisible by 3, otherwise return $a0 as a string.",),
       "    if $a0 % 3 == 0:\n        return 'Fizz'\n    return str($a0)",
       lambda k, r: [r.randint(1, k["high"])], _mag, lambda k: [[3], [4], [9], [10]]),
    Op("fizzbuzz_one", 0.3, ("fizzbuzz", "fizz_buzz", "fb"), (N,), "def $name($a0: int) -> str:",
       ("Return 'FizzBuzz' if $a0 is divisible by 15, 'Fizz' if only by 3, 'Buzz' if only by 5, else $a0 as a string.",),
       "    if $a0 % 15 == 0:\n        return 'FizzBuzz'\n    if $a0 % 3 == 0:\n        return 'Fizz'\n    if $a0 % 5 == 0:\n"
       "        return 'Buzz'\n    return str($a0)",
       lambda k, r: [r.randint(1, k["high"])], _mag, lambda k: [[1], [3], [5], [15], [30], [7]]),
    Op("custom_list", 0.6, ("custom_fizzbuzz", "label_range", "word_game"), (N,), "def $name($a0: int) -> list[str]:",
       ("Return a list for the numbers 1 to $a0: a number divisible by both $a and $b becomes '$wa$wb', one "
        "divisible only by $a becomes '$wa', one divisible only by $b becomes '$wb', and any other number becomes "
        "its decimal string.",),
       "    out = []\n    for i in range(1, $a0 + 1):\n        word = ''\n        if i % $a == 0:\n            word += '$wa'\n"
       "        if i % $b == 0:\n            word += '$wb'\n        out.append(word or str(i))\n    return out",
       lambda k, r: [r.randint(0, k["high"])], _rules, lambda k: [[0], [1], [k["a"] * k["b"]]]),
    Op("count_labels", 0.9, ("count_plain", "count_unlabelled"), (("lo", "start"), ("hi", "stop")),
       "def $name($a0: int, $a1: int) -> int:",
       ("Count the integers from $a0 to $a1 inclusive that are divisible by neither $a nor $b, or that contain the "
        "digit $a. Return 0 when $a0 > $a1.",),
       "    count = 0\n    for i in range($a0, $a1 + 1):\n        if (i % $a != 0 and i % $b != 0) or '$a' in str(i):\n            count += 1\n    return count",
       lambda k, r: sorted([r.randint(0, k["high"]), r.randint(0, k["high"])]) if r.random() < 0.8 else [5, 1], _rules,
       lambda k: [[1, 1], [0, 0], [k["a"], k["a"]], [3, 2]]),
)

FAMILY = register(MenuFamily("fizzbuzz", ("simulation", "string", "math"), OPS))
