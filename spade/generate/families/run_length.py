"""Run-length encoding: count runs, compress and expand strings."""

from __future__ import annotations

from spade.generate.menu import MenuFamily, Op, span
from spade.generate.registry import register

TEXT = ("s", "text", "data")


def _size(d, rng):
    return {"size": span(d, 3, 8)}


def _runs(knobs, rng):
    return ["".join(rng.choice("abc") * rng.randint(1, 4) for _ in range(rng.randint(1, knobs["size"])))]


def _encoded(knobs, rng):
    return ["".join(rng.choice("abcxyz") + str(rng.randint(1, 9)) for _ in range(rng.randint(1, knobs["size"])))]


OPS = (
    Op("count_runs", 0.0, ("count_runs", "number_of_runs", "count_groups"), (TEXT,),
       "def $name($a0: str) -> int:",
       ("Return how many groups of equal adjacent characters $a0 has, e.g. 'aabccc' has 3 groups.",),
       "    count = 0\n    for i in range(len($a0)):\n        if i == 0 or $a0[i] != $a0[i - 1]:\n            count += 1\n    return count",
       _runs, _size, lambda k: [[""], ["a"], ["ab"], ["aaa"]]),
    Op("longest_run", 0.3, ("longest_run", "max_streak", "longest_repeat"), (TEXT,),
       "def $name($a0: str) -> int:",
       ("Return the length of the longest block of the same character repeated in a row in $a0 (0 for an empty string).",),
       "    best = 0\n    cur = 0\n    for i in range(len($a0)):\n        if i > 0 and $a0[i] == $a0[i - 1]:\n            cur += 1\n"
       "        else:\n            cur = 1\n        best = max(best, cur)\n    return best",
       _runs, _size, lambda k: [[""], ["a"], ["abbb"], ["aab"]]),
    Op("encode", 0.6, ("rle_encode", "compress", "run_length_encode"), (TEXT,),
       "def $name($a0: str) -> str:",
       ("Run-length encode $a0: replace each block of a repeated character by the character followed by the block "
        "length, e.g. 'aaabcc' becomes 'a3b1c2'.",),
       "    out = ''\n    i = 0\n    while i < len($a0):\n        j = i\n        while j < len($a0) and $a0[j] == $a0[i]:\n            j += 1\n"
       "        out += $a0[i] + str(j - i)\n        i = j\n    return out",
       _runs, _size, lambda k: [[""], ["a"], ["aaab"], ["abab"]]),
    Op("decode", 0.8, ("rle_decode", "expand", "run_length_decode"), (TEXT,),
       "def $name($a0: str) -> str:",
       ("$a0 is a run-length code made of pairs of a letter and one digit, like 'a3b1'. Return the expanded string, "
        "e.g. 'aaab'.",),
       "    out = ''\n    for i in range(0, len($a0), 2):\n        out += $a0[i] * int($a0[i + 1])\n    return out",
       _encoded, _size, lambda k: [[""], ["a1"], ["z9"], ["a2b3"]]),
)

FAMILY = register(MenuFamily("run_length", ("string", "encoding"), OPS))
