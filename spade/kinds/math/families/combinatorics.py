"""Counting: one item of each of two kinds (the product rule), choices (nCr), ordered selections (nPr), arrangements
of a word with repeated letters, committees with an "at least one" condition, and identical items into distinct boxes.

Difficulty widens the sizes and moves from the product rule (only it below 0.25, with up to 5 items of each kind: "3
drinks and 4 cakes: in how many ways can you choose one drink and one cake?"; up to 6 at 0.25) to plain choices and
orders (from 0.25), words with repeats (from 0.3), "at least one" conditions (from 0.5) and items into boxes (from 0.7). The answer is a whole
number, computed exactly here.
"""

from __future__ import annotations

import math
import random
from collections import Counter

from spade.generate.family import Variant
from spade.generate.registry import register
from spade.kinds.math.families.base import MathFamily, span, variant

WORDS = ("LEVEL", "BANANA", "ALGEBRA", "COOKBOOK", "MISSISSIPPI", "PEPPER", "STATISTICS", "COMMITTEE", "ADDRESS",
         "BALLOON", "ASSESS", "REFERENCE", "TENNESSEE", "SUCCESS", "PARALLEL")


class Combinatorics(MathFamily):
    name = "math_combinatorics"
    tags = ("math", "combinatorics", "counting")

    def variant(self, difficulty: float, rng: random.Random) -> Variant:
        asks = ["product"] + (["choose", "order"] if difficulty >= 0.25 else []) + \
               (["word"] if difficulty >= 0.3 else []) + (["at_least_one"] if difficulty >= 0.5 else []) + \
               (["boxes"] if difficulty >= 0.7 else [])
        knobs = {"ask": rng.choice(asks[-3:]), "size": span(difficulty, 6, 20), "items": span(difficulty, 5, 9)}
        text, answer = _question(knobs, rng)
        return variant(text, "number", str(answer), knobs)


PAIRS = (("drinks", "cakes", "drink", "cake"), ("shirts", "hats", "shirt", "hat"), ("starters", "main courses",
         "starter", "main course"), ("pens", "notebooks", "pen", "notebook"))


def _question(knobs: dict, rng: random.Random) -> tuple[str, int]:
    if knobs["ask"] == "product":
        many, other, one, another = rng.choice(PAIRS)
        a, b = rng.randint(2, knobs["items"]), rng.randint(2, knobs["items"])
        text = f"A shop has {a} {many} and {b} {other}. In how many ways can you choose one {one} and one {another}?"
        return text, a * b
    n = rng.randint(max(4, knobs["size"] // 2), knobs["size"])
    k = rng.randint(2, min(5, n - 1))
    ask = knobs["ask"]
    if ask == "choose":
        return f"In how many ways can a team of {k} be chosen from {n} people?", math.comb(n, k)
    if ask == "order":
        return (f"{n} runners race. In how many ways can the first {k} places be filled (no ties)?",
                math.perm(n, k))
    if ask == "word":
        word = rng.choice([w for w in WORDS if len(w) <= max(5, knobs["size"] - 3)])
        count = math.factorial(len(word))
        for repeats in Counter(word).values():
            count //= math.factorial(repeats)
        return f"How many different arrangements of the letters of the word {word} are there?", count
    if ask == "at_least_one":
        women = rng.randint(2, n - 2)
        men = n - women
        k = rng.randint(2, min(5, men))
        text = (f"A committee of {k} is chosen from {men} men and {women} women. In how many ways can it be chosen "
                "if it must include at least one woman?")
        return text, math.comb(n, k) - math.comb(men, k)
    boxes = rng.randint(2, 5)
    text = f"In how many ways can {n} identical balls be put into {boxes} different boxes (a box may stay empty)?"
    return text, math.comb(n + boxes - 1, boxes - 1)


FAMILY = register(Combinatorics())
