"""Counting inside strings: vowels, a letter, words; harder levels add case rules and word conditions."""

from __future__ import annotations

from spade.generate.draws import mixed_case, sentence
from spade.generate.menu import MenuFamily, Op, span
from spade.generate.registry import register
from spade.generate.text_inputs import TEXT_PARAMS, one_sentence, one_word, text_size

TEXT = TEXT_PARAMS
SIG = "def $name($a0: str) -> int:"


OPS = (
    Op("vowels", 0.0, ("count_vowels", "vowel_count", "num_vowels"), (TEXT,), SIG,
       ("Return the number of vowels (a, e, i, o, u) in the lowercase string $a0.",
        "Count how many characters of the lowercase string $a0 are vowels (a, e, i, o or u)."),
       "    return sum(1 for c in $a0 if c in 'aeiou')", one_word, text_size, lambda k: [[""], ["bcd"], ["aeiou"]]),
    Op("length", 0.0, ("string_length", "length_of", "count_chars"), (TEXT,), SIG,
       ("Return the number of characters in $a0 without using len.", "Return how many characters the string $a0 has."),
       "    n = 0\n    for _ in $a0:\n        n += 1\n    return n", one_word, text_size, lambda k: [[""], ["a"]]),
    Op("letter", 0.0, ("count_letter", "count_char", "letter_count"), (TEXT,), SIG,
       ("Return how many times the letter '$c' appears in $a0.",),
       "    return $a0.count('$c')", one_word, lambda d, r: {"size": span(d, 4, 10), "c": r.choice("aeiost")},
       lambda k: [[""], [k["c"] * 3], ["xyz"]]),
    Op("words", 0.3, ("count_words", "word_count", "num_words"), (TEXT,), SIG,
       ("Return the number of words in $a0, where words are separated by single spaces. An empty string has 0 words.",),
       "    if $a0 == '':\n        return 0\n    return len($a0.split(' '))", one_sentence, text_size, lambda k: [[""], ["one"], ["a b"]]),
    Op("upper", 0.3, ("count_upper", "capital_count", "num_uppercase"), (TEXT,), SIG,
       ("Return how many uppercase letters $a0 contains.",),
       "    return sum(1 for c in $a0 if c.isupper())", lambda k, r: [mixed_case(r, sentence(r, k["size"], 1))], text_size,
       lambda k: [[""], ["ABC"], ["abc"]]),
    Op("long_words", 0.6, ("count_long_words", "long_word_count"), (TEXT,), SIG,
       ("Return how many words of the space-separated sentence $a0 have more than $n letters.",),
       "    return sum(1 for w in $a0.split() if len(w) > $n)", one_sentence,
       lambda d, r: {"size": span(d, 4, 10), "n": r.randint(2, 4)},
       lambda k: [[""], ["a" * k["n"]], ["a" * (k["n"] + 1)]]),
    Op("vowel_start_words", 0.8, ("count_vowel_words", "vowel_initial_words"), (TEXT,), SIG,
       ("Return how many words of $a0 start with a vowel (a, e, i, o, u, either case) and end with a consonant. "
        "Words are separated by spaces.",),
       "    count = 0\n    for w in $a0.split():\n        low = w.lower()\n"
       "        if low[0] in 'aeiou' and low[-1] not in 'aeiou':\n            count += 1\n    return count",
       lambda k, r: [mixed_case(r, sentence(r, k["size"], 1))], text_size,
       lambda k: [[""], ["Apple"], ["apples Egg"], ["a"]]),
)

FAMILY = register(MenuFamily("string_count", ("string", "counting"), OPS))
