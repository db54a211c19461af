"""Dict manipulation: look-ups, summing values, inverting, grouping and merging."""

from __future__ import annotations

from spade.generate.draws import VOCABULARY, words
from spade.generate.menu import MenuFamily, Op, span
from spade.generate.registry import register

D = ("d", "table", "mapping", "scores", "counts")


def _size(d, rng):
    return {"size": span(d, 3, 8)}


def _dict(knobs, rng, low=-9, high=9):
    keys = rng.sample(VOCABULARY, rng.randint(1, knobs["size"]))
    return {k: rng.randint(low, high) for k in keys}


OPS = (
    Op("sum_values", 0.0, ("sum_values", "total_of_values", "add_values"), (D,),
       "def $name($a0: dict[str, int]) -> int:",
       ("Return the sum of all the values in the dictionary $a0.",),
       "    total = 0\n    for v in $a0.values():\n        total += v\n    return total",
       lambda k, r: [_dict(k, r)], _size, lambda k: [[{}], [{"a": 0}], [{"a": -3, "b": 5}]]),
    Op("get_default", 0.0, ("get_or_zero", "lookup", "value_or_zero"), (D, ("key", "name", "k")),
       "def $name($a0: dict[str, int], $a1: str) -> int:",
       ("Return the value stored under $a1 in $a0, or 0 if $a1 is not a key of $a0.",),
       "    if $a1 in $a0:\n        return $a0[$a1]\n    return 0",
       lambda k, r: [_dict(k, r), r.choice(VOCABULARY)], _size, lambda k: [[{}, "a"], [{"a": 4}, "a"], [{"a": 4}, "b"]]),
    Op("keys_above", 0.3, ("keys_above", "big_keys", "keys_with_large_values"), (D,),
       "def $name($a0: dict[str, int]) -> list[str]:",
       ("Return the keys of $a0 whose value is greater than $t, sorted alphabetically.",),
       "    return sorted(k for k, v in $a0.items() if v > $t)",
       lambda k, r: [_dict(k, r)], lambda d, r: {"size": span(d, 3, 8), "t": r.randint(-2, 4)},
       lambda k: [[{}], [{"a": k["t"]}], [{"b": k["t"] + 1, "a": k["t"] + 2}]]),
    Op("invert", 0.5, ("invert_dict", "swap_keys_values"), (D,),
       "def $name($a0: dict[str, str]) -> dict[str, str]:",
       ("Return a new dictionary with the keys and values of $a0 swapped. The values of $a0 are all different.",),
       "    return {v: k for k, v in $a0.items()}",
       lambda k, r: [dict(zip(r.sample(VOCABULARY, k["size"]), r.sample(VOCABULARY, k["size"])))], _size,
       lambda k: [[{}], [{"a": "b"}]]),
    Op("group_by_first", 0.7, ("group_by_first_letter", "index_words"), (("words", "items", "names"),),
       "def $name($a0: list[str]) -> dict[str, list[str]]:",
       ("Group the words in $a0 by their first letter: return a dict mapping each first letter to the list of words "
        "that start with it, in their original order. Skip empty strings.",),
       "    groups = {}\n    for w in $a0:\n        if w:\n            groups.setdefault(w[0], []).append(w)\n    return groups",
       lambda k, r: [words(r, k["size"] + 2, 1)], _size, lambda k: [[[]], [[""]], [["ab", "ac", "b"]]]),
    Op("merge_sum", 0.9, ("merge_counts", "combine_scores", "add_dicts"), (D, ("other", "extra", "more")),
       "def $name($a0: dict[str, int], $a1: dict[str, int]) -> dict[str, int]:",
       ("Merge $a0 and $a1 into a new dict: a key in both gets the sum of its two values; drop every key whose "
        "final value is 0 or less.",),
       "    out = dict($a0)\n    for k, v in $a1.items():\n        out[k] = out.get(k, 0) + v\n    return {k: v for k, v in out.items() if v > 0}",
       lambda k, r: [_dict(k, r), _dict(k, r)], _size,
       lambda k: [[{}, {}], [{"a": 1}, {"a": -1}], [{"a": 2}, {"b": 0}], [{"x": -1}, {"x": 3}]]),
)

FAMILY = register(MenuFamily("dict_ops", ("dict",), OPS))
