"""Strings mapped to strings: reverse, uppercase, remove vowels; harder levels shift letters and words."""

from __future__ import annotations

from spade.generate.draws import mixed_case, sentence, word
from spade.generate.menu import MenuFamily, Op, span
from spade.generate.registry import register
from spade.generate.text_inputs import TEXT_PARAMS, one_sentence, one_word, text_size

TEXT = TEXT_PARAMS
SIG = "def $name($a0: str) -> str:"


EDGES = lambda k: [[""], ["a"], ["ab"]]  # noqa: E731

OPS = (
    Op("reverse", 0.0, ("reverse_string", "reverse", "backwards"), (TEXT,), SIG,
       ("Return the string $a0 reversed.", "Return $a0 written backwards."),
       "    return $a0[::-1]", one_word, text_size, EDGES),
    Op("upper", 0.0, ("to_upper", "shout", "uppercase"), (TEXT,), SIG,
       ("Return $a0 in uppercase letters.",), "    return $a0.upper()", one_word, text_size, EDGES),
    Op("no_vowels", 0.0, ("remove_vowels", "strip_vowels", "without_vowels"), (TEXT,), SIG,
       ("Return the lowercase string $a0 with every vowel (a, e, i, o, u) removed.",),
       "    return ''.join(c for c in $a0 if c not in 'aeiou')", one_word, text_size, lambda k: [[""], ["aeiou"], ["xyz"]]),
    Op("title", 0.3, ("capitalize_words", "title_words"), (TEXT,), SIG,
       ("Return $a0 with the first letter of every space-separated word in uppercase and the rest unchanged.",),
       "    return ' '.join(w[:1].upper() + w[1:] for w in $a0.split(' '))", one_sentence, text_size,
       lambda k: [[""], ["a"], ["ab cd"]]),
    Op("swapcase", 0.3, ("swap_case", "flip_case", "invert_case"), (TEXT,), SIG,
       ("Return $a0 with lowercase letters made uppercase and uppercase letters made lowercase.",),
       "    out = ''\n    for c in $a0:\n        if c.isupper():\n            out += c.lower()\n        else:\n            out += c.upper()\n    return out",
       lambda k, r: [mixed_case(r, word(r, 1, k["size"] + 4))], text_size, lambda k: [[""], ["Ab"], ["aB c"]]),
    Op("reverse_words", 0.5, ("reverse_words", "words_backwards", "flip_word_order"), (TEXT,), SIG,
       ("Return the words of $a0 in reverse order, joined by single spaces. Words in $a0 are separated by single spaces.",),
       "    return ' '.join($a0.split(' ')[::-1])", one_sentence, text_size, lambda k: [[""], ["one"], ["a b c"]]),
    Op("caesar", 0.7, ("caesar", "shift_letters", "rotate_letters"), (TEXT,), SIG,
       ("Shift every lowercase letter of $a0 forward by $k places in the alphabet, wrapping from z to a. "
        "Other characters stay the same.",),
       "    out = []\n    for c in $a0:\n        if 'a' <= c <= 'z':\n            out.append(chr((ord(c) - 97 + $k) % 26 + 97))\n"
       "        else:\n            out.append(c)\n    return ''.join(out)",
       one_sentence, lambda d, r: {"size": span(d, 4, 10), "k": r.randint(1, 25)}, lambda k: [[""], ["xyz"], ["a b!"]]),
    Op("alternate_case_words", 0.9, ("zigzag_words", "alternate_word_case"), (TEXT,), SIG,
       ("Split $a0 on spaces. Make words at even positions (0, 2, ...) uppercase and words at odd positions lowercase, "
        "then reverse each word that has more than $n characters. Join with single spaces.",),
       "    out = []\n    for i, w in enumerate($a0.split(' ')):\n        w = w.upper() if i % 2 == 0 else w.lower()\n"
       "        if len(w) > $n:\n            w = w[::-1]\n        out.append(w)\n    return ' '.join(out)",
       lambda k, r: [mixed_case(r, sentence(r, k["size"], 1))], lambda d, r: {"size": span(d, 4, 10), "n": r.randint(3, 5)},
       lambda k: [[""], ["ab"], ["Ab cD"], ["a" * k["n"] + "b " + "c" * (k["n"] + 1)]]),
)

FAMILY = register(MenuFamily("string_transform", ("string", "map"), OPS))
