"""Palindromes: is a word a palindrome; harder levels ignore case and punctuation or find the longest one."""

from __future__ import annotations

from spade.generate.draws import mixed_case, word
from spade.generate.menu import MenuFamily, Op, span
from spade.generate.registry import register

TEXT = ("s", "text", "word", "phrase")


def _size(d, rng):
    return {"size": span(d, 3, 9)}


def _maybe_pal(knobs, rng):
    half = word(rng, 0, knobs["size"], "abc")
    middle = rng.choice(["", "a", "b", "x"])
    pal = half + middle + half[::-1]
    return [pal if rng.random() < 0.5 else word(rng, 1, knobs["size"] * 2, "abc")]


def _noisy_pal(knobs, rng):
    (text,) = _maybe_pal(knobs, rng)
    noisy = "".join(c + (rng.choice([" ", ",", "!", ""]) if rng.random() < 0.3 else "") for c in text)
    return [mixed_case(rng, noisy)]


OPS = (
    Op("is_pal", 0.0, ("is_palindrome", "palindrome", "reads_same_backwards"), (TEXT,),
       "def $name($a0: str) -> bool:",
       ("Return True if the string $a0 reads the same forwards and backwards, otherwise False.",
        "Check whether $a0 is a palindrome and return True or False."),
       "    return $a0 == $a0[::-1]", _maybe_pal, _size, lambda k: [[""], ["a"], ["ab"], ["aba"]]),
    Op("is_pal_loose", 0.4, ("is_loose_palindrome", "palindrome_ignoring_case", "clean_palindrome"), (TEXT,),
       "def $name($a0: str) -> bool:",
       ("Return True if $a0 is a palindrome when you ignore letter case and keep only letters and digits.",),
       "    kept = [c.lower() for c in $a0 if c.isalnum()]\n    return kept == kept[::-1]",
       _noisy_pal, _size, lambda k: [[""], ["A, a!"], ["Ab"], ["!!"]]),
    Op("longest_pal", 0.8, ("longest_palindrome", "longest_palindromic_substring"), (TEXT,),
       "def $name($a0: str) -> str:",
       ("Return the longest substring of $a0 that is a palindrome. If several have the same length, return the one "
        "that starts first. Return an empty string for an empty input.",),
       "    best = ''\n    for i in range(len($a0)):\n        for j in range(i + 1, len($a0) + 1):\n"
       "            part = $a0[i:j]\n            if part == part[::-1] and len(part) > len(best):\n                best = part\n    return best",
       lambda k, r: [word(r, 1, k["size"] * 2, "abc")], _size, lambda k: [[""], ["a"], ["ab"], ["abba"], ["cabad"]]),
)

FAMILY = register(MenuFamily("palindrome", ("string", "palindrome"), OPS))
