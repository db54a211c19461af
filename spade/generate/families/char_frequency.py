"""Counting into dicts: letter frequencies, word frequencies, the most common letter."""

from __future__ import annotations

from spade.generate.draws import sentence, word
from spade.generate.menu import MenuFamily, Op, span
from spade.generate.registry import register

TEXT = ("s", "text", "word", "sentence")


def _size(d, rng):
    return {"size": span(d, 4, 10)}


OPS = (
    Op("char_counts", 0.0, ("char_count", "letter_frequency", "count_letters"), (TEXT,),
       "def $name($a0: str) -> dict[str, int]:",
       ("Return a dictionary mapping each character of $a0 to the number of times it appears.",
        "Count every character in $a0 and return the counts as a dict."),
       "    counts = {}\n    for c in $a0:\n        counts[c] = counts.get(c, 0) + 1\n    return counts",
       lambda k, r: [word(r, 1, k["size"] + 3, "abcde")], _size, lambda k: [[""], ["a"], ["aab"]]),
    Op("word_counts", 0.3, ("word_frequency", "count_words_dict", "word_counts"), (TEXT,),
       "def $name($a0: str) -> dict[str, int]:",
       ("Return a dictionary that maps each space-separated word of $a0 to how many times it occurs.",),
       "    counts = {}\n    for w in $a0.split():\n        counts[w] = counts.get(w, 0) + 1\n    return counts",
       lambda k, r: [sentence(r, k["size"], 1)], _size, lambda k: [[""], ["a a"], ["a b a"]]),
    Op("most_common", 0.5, ("most_common_char", "top_letter", "most_frequent"), (TEXT,),
       "def $name($a0: str) -> str:",
       ("Return the character that appears most often in the non-empty string $a0. On a tie, return the one that "
        "comes first in alphabetical order.",),
       "    counts = {}\n    for c in $a0:\n        counts[c] = counts.get(c, 0) + 1\n"
       "    return min(counts, key=lambda c: (-counts[c], c))",
       lambda k, r: [word(r, 1, k["size"] + 3, "abcde")], _size, lambda k: [["a"], ["ba"], ["abb"], ["bbaa"]]),
    Op("letters_at_least", 0.8, ("frequent_letters", "letters_seen_often"), (TEXT,),
       "def $name($a0: str) -> list[str]:",
       ("Return, in alphabetical order, the letters that appear at least $k times in $a0, ignoring case and "
        "ignoring anything that is not a letter.",),
       "    counts = {}\n    for c in $a0.lower():\n        if c.isalpha():\n            counts[c] = counts.get(c, 0) + 1\n"
       "    return sorted(c for c in counts if counts[c] >= $k)",
       lambda k, r: [sentence(r, k["size"], 1)], lambda d, r: {"size": span(d, 4, 10), "k": r.randint(2, 4)},
       lambda k: [[""], ["A a" * k["k"]], ["b" * (k["k"] - 1)], ["1" * 9]]),
)

FAMILY = register(MenuFamily("char_frequency", ("string", "dict", "counting"), OPS))
