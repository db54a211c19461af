"""Read lines of text to the end of the input and count words: in total, per line, the longest, the most frequent,
a frequency table; at higher levels words are compared ignoring case and surrounding punctuation. Below
ONE_LINE_BELOW the input is a single line, and at difficulty 0 the task is one step (count its words, or print it in
upper case), which the embedded 135M model can write."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from spade.generate.family import Variant
from spade.generate.menu import span
from spade.generate.registry import register
from spade.kinds.program.families.base import SIGNATURE, ProgramFamily, pick_level, starter

VOCAB = ("apple", "bird", "cat", "dog", "egg", "fig", "goat", "hat", "ink", "jam", "kite", "lamp", "moon", "nest",
         "owl", "pear", "queen", "rose", "sun", "tree")

OPS = {
    "upper": ("Print every line of the input in upper case.",
              "for line in lines:\n    print(line.upper())"),
    "count_words": ("Print the total number of words.",
                    "print(sum(len(line.split()) for line in lines))"),
    "longest": ("Print the longest word (the first one in the text if several are equally long).",
                "words = [w for line in lines for w in line.split()]\nprint(max(words, key=len))"),
    "per_line": ("For every line of the input, in order, print the number of words on it (0 for an empty line).",
                 "for line in lines:\n    print(len(line.split()))"),
    "most_frequent": ("Print the word that occurs most often and the number of times it occurs, separated by a "
                      "space; if several words are tied, print the alphabetically smallest.",
                      "counts = {}\nfor w in words():\n    counts[w] = counts.get(w, 0) + 1\n"
                      "best = min(counts, key=lambda w: (-counts[w], w))\nprint(best, counts[best])"),
    "frequency_table": ("Print every distinct word with the number of times it occurs, one 'word count' pair per "
                        "line, the most frequent first and tied words in alphabetical order.",
                        "counts = {}\nfor w in words():\n    counts[w] = counts.get(w, 0) + 1\n"
                        "for w in sorted(counts, key=lambda w: (-counts[w], w)):\n    print(w, counts[w])"),
}
LEVELS = ((0.0, "count_words"), (0.0, "upper"), (0.15, "longest"), (0.3, "per_line"), (0.45, "most_frequent"),
          (0.65, "frequency_table"))
ONE_LINE_BELOW = 0.2
READING = {"count_words": "words = input().split()", "upper": "line = input()"}  # starters (others read words too)
_PLAIN = "def words():\n    return [w for line in lines for w in line.split()]\n"
_FOLDED = "def words():\n    return [w.strip('.,!?').lower() for line in lines for w in line.split()]\n"


class Words(ProgramFamily):
    name = "program_words"
    tags = ("program", "string", "parsing", "hash_map")

    def variant(self, difficulty: float, rng: random.Random) -> Variant:
        op = pick_level(LEVELS, difficulty, rng)
        fold = difficulty >= 0.6 and op in ("most_frequent", "frequency_table")
        one_line = difficulty < ONE_LINE_BELOW
        knobs = {"op": op, "fold": fold, "lines_max": 1 if one_line else span(difficulty, 2, 8),
                 "words_max": span(difficulty, 3, 10), "vocab": span(difficulty, 4, len(VOCAB))}
        text, body = OPS[op]
        if one_line:
            knobs["starter"] = starter(difficulty, READING.get(op, "words = input().split()"))
            text = text.replace("every line of the input", "the line").replace(", in order,", "")
            fmt = "The input is one line of words separated by spaces."
        else:
            fmt = "The input is some lines of text (read to the end of the input); words are separated by spaces."
        if fold:
            fmt += (" Words that differ only in upper/lower case or in the punctuation marks . , ! ? at their ends "
                    "are the same word; print words in lower case without those marks.")
        helper = (_FOLDED if fold else _PLAIN) if "words()" in body else ""
        reference = f"import sys\n\nlines = sys.stdin.read().splitlines()\n{helper}{body}\n"
        return Variant(f"{fmt} {text}", SIGNATURE, "", reference, knobs)

    def random_input(self, knobs: Mapping[str, Any], rng: random.Random) -> list[Any]:
        vocab = VOCAB[: knobs["vocab"]]
        rows = []
        for _ in range(rng.randint(1, knobs["lines_max"])):
            rows.append(" ".join(_word(rng.choice(vocab), knobs["fold"], rng)
                                 for _ in range(rng.randint(1, knobs["words_max"]))))
        return ["\n".join(rows) + "\n"]

    def edge_inputs(self, knobs: Mapping[str, Any]) -> list[list[Any]]:
        a, b = VOCAB[0], VOCAB[1]
        edges = [f"{a}\n", f"{b} {a}\n", f"{a}\n\n{b} {b}\n", f"{b} {a} {a} {b}\n", f"  {b}   {a}  \n{a}\n"]
        if knobs["lines_max"] == 1:
            edges = [f"{a}\n", f"{b} {a}\n", f"{b} {a} {a} {b}\n", f"  {b}   {a}  \n", f"{a} {b} {b}\n"]
        if knobs["fold"]:
            edges += [f"{a.upper()} {a}!\n{b}, {b.title()}.\n"]
        return [[e] for e in edges]


def _word(word: str, fold: bool, rng: random.Random) -> str:
    if not fold:
        return word
    if rng.random() < 0.3:
        word = word.upper() if rng.random() < 0.5 else word.title()
    return word + rng.choice(",.!?") if rng.random() < 0.2 else word


FAMILY = register(Words())
