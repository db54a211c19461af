"""Random JSON values that family input generators draw from: integer lists, words, text, grids.

In: a `random.Random` and sizes. Out: plain lists, strings and ints (never tuples), ready for a test.
"""

from __future__ import annotations

import random

VOCABULARY = (
    "apple", "river", "stone", "cloud", "tiger", "lemon", "house", "green", "night", "table",
    "bread", "chair", "light", "music", "ocean", "plant", "queen", "sugar", "train", "water",
    "cat", "dog", "sun", "map", "key", "pen", "cup", "box", "red", "sky", "a", "an", "level", "noon",
)
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def int_list(rng: random.Random, max_len: int, low: int = -20, high: int = 20, min_len: int = 0) -> list[int]:
    return [rng.randint(low, high) for _ in range(rng.randint(min_len, max_len))]


def sorted_unique(rng: random.Random, max_len: int, low: int = -50, high: int = 50, min_len: int = 0) -> list[int]:
    n = rng.randint(min_len, max_len)
    return sorted(rng.sample(range(low, high + 1), min(n, high - low + 1)))


def word(rng: random.Random, min_len: int = 1, max_len: int = 8, alphabet: str = LETTERS) -> str:
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(min_len, max_len)))


def words(rng: random.Random, max_count: int, min_count: int = 0) -> list[str]:
    return [rng.choice(VOCABULARY) for _ in range(rng.randint(min_count, max_count))]


def sentence(rng: random.Random, max_words: int, min_words: int = 0) -> str:
    return " ".join(words(rng, max_words, min_words))


def mixed_case(rng: random.Random, text: str) -> str:
    return "".join(c.upper() if rng.random() < 0.3 else c for c in text)


def grid(rng: random.Random, rows: int, cols: int, low: int = -9, high: int = 9) -> list[list[int]]:
    return [[rng.randint(low, high) for _ in range(cols)] for _ in range(rows)]
