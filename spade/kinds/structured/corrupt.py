"""Corrupted copies of a reference document, to show a task's tests bite: a key dropped, a value's type changed, a
number pushed far out of range, a list item dropped or repeated. A sound task's tests catch most of them.

In: the parsed reference (plain JSON data, bounded by the judge) and a seed. Out: up to `count` (class, document)
pairs, a pure function of the two; each document is JSON text (JSON is valid YAML, so any task's judge reads it).
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

CLASSES = ("drop_key", "change_type", "out_of_range", "list_item")
MAX_SITES = 2_000


def corruptions(data: Any, seed: str, count: int) -> list[tuple[str, str]]:
    sites = _sites(data)
    candidates: list[tuple[str, tuple[Any, ...], str]] = []
    for path, value in sites:
        if path:
            if type(path[-1]) is str:
                candidates.append(("drop_key", path, "drop"))
            candidates.append(("change_type", path, "type"))
            if type(value) in (int, float) and type(value) is not bool:
                candidates += [("out_of_range", path, "big"), ("out_of_range", path, "negative")]
        if type(value) is list and value:
            candidates += [("list_item", path, "drop_item"), ("list_item", path, "repeat_item")]
    rng = random.Random(f"spade-corrupt|{seed}")
    # One of each class first (where the document has one), then the rest at random.
    rng.shuffle(candidates)
    firsts = [next(c for c in candidates if c[0] == k) for k in CLASSES if any(c[0] == k for c in candidates)]
    chosen = firsts + [c for c in candidates if c not in firsts][: max(0, count - len(firsts))]
    out = []
    for cls, path, how in chosen[:count]:
        out.append((cls, json.dumps(_apply(data, path, how))))
    return out


def _sites(data: Any) -> list[tuple[tuple[Any, ...], Any]]:
    found, stack = [], [((), data)]
    while stack and len(found) < MAX_SITES:
        path, value = stack.pop()
        found.append((path, value))
        if type(value) is dict:
            stack.extend(((*path, k), v) for k, v in value.items())
        elif type(value) is list:
            stack.extend(((*path, i), v) for i, v in enumerate(value))
    return sorted(found, key=lambda s: json.dumps(s[0]))


def _apply(data: Any, path: tuple[Any, ...], how: str) -> Any:
    doc = copy.deepcopy(data)
    if not path:
        parent, key = None, None
        target = doc
    else:
        parent = doc
        for step in path[:-1]:
            parent = parent[step]
        key = path[-1]
        target = parent[key]
    if how == "drop":
        del parent[key]
    elif how == "type":
        parent[key] = _other_type(target)
    elif how == "big":
        parent[key] = target * 1000 + 10**6 if type(target) is int else target * 1000.0 + 1e6
    elif how == "negative":
        parent[key] = -abs(target) - 1
    elif how == "drop_item":
        target.pop()
    elif how == "repeat_item":
        target.append(copy.deepcopy(target[0]))
    return doc


def _other_type(value: Any) -> Any:
    if type(value) is bool:
        return "yes" if value else "no"
    if type(value) in (int, float):
        return str(value)
    if type(value) is str:
        return 1
    if type(value) is list:
        return {"items": value}
    if type(value) is dict:
        return [value]
    return 0
