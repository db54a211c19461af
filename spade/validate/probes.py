"""Probe inputs for a task that has no family to ask: small edits of its own test inputs.

In: a task's test inputs (argument lists of JSON values, or a program's stdin strings), how many to make and a
salt. Out: up to `count` new inputs, none equal to a test's, a pure function of those. Each probe changes one
place in one input (an int or float nudged, a bool flipped, a string or list shortened or reversed, one element
of a container edited in turn) or, for a function of several arguments, takes each argument from a different
test; a program's stdin has one of its integers nudged. The edits stay close to the inputs the author wrote, so a
probe usually still meets the task's preconditions; one the reference cannot answer is dropped by the caller.
Validation uses probes only to tell a surviving mutant that behaves like the reference on every probe
(presumed equivalent: an unreachable branch, a redundant check) from one the tests merely miss.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator, Sequence
from typing import Any

MIN_PROBES = 4
"""Fewer usable probes than this recognise no mutant as equivalent: too little evidence either way."""
_MAX_DEPTH = 8
_MAX_SOURCES = 50  # tests whose inputs are edited: enough variety, bounded work on a task with many tests
_INT = re.compile(r"-?\d+")


def argument_probes(inputs: Sequence[Sequence[Any]], count: int, salt: str) -> list[tuple[Any, ...]]:
    """Up to `count` argument tuples near `inputs`, new and distinct, chosen deterministically by `salt`."""
    pool = [tuple(new) for args in inputs[:_MAX_SOURCES] for new in _edited_args(list(args))] + _crossed(inputs)
    return _pick(pool, inputs, count, salt)


def stdin_probes(inputs: Sequence[Sequence[Any]], count: int, salt: str) -> list[tuple[Any, ...]]:
    """Up to `count` one-string argument tuples: a test's stdin with one integer nudged by ±1."""
    pool = []
    for args in inputs[:_MAX_SOURCES]:
        text = args[0] if len(args) == 1 and isinstance(args[0], str) else None
        for m in _INT.finditer(text or "") if text is not None and len(text) <= 1 << 16 else ():
            for delta in (1, -1):
                pool.append((text[: m.start()] + str(int(m.group()) + delta) + text[m.end():],))
            if len(pool) > 40 * count:
                break
    return _pick(pool, inputs, count, salt)


def _pick(pool: list[tuple[Any, ...]], inputs: Sequence[Sequence[Any]], count: int, salt: str) -> list[tuple[Any, ...]]:
    seen = {_key(a) for a in inputs}
    unique = []
    for args in pool:
        key = _key(args)
        if key not in seen:
            seen.add(key)
            unique.append(args)
    random.Random(f"spade-probe|{salt}").shuffle(unique)
    return unique[:count]


def _key(args: Sequence[Any]) -> str:
    return json.dumps(list(args), sort_keys=True, default=repr)


def _edited_args(args: list[Any]) -> Iterator[list[Any]]:
    for i, value in enumerate(args):
        for new in _edits(value, 0):
            yield args[:i] + [new] + args[i + 1:]


def _crossed(inputs: Sequence[Sequence[Any]]) -> list[tuple[Any, ...]]:
    """Each argument from another test: in-domain for every argument taken alone."""
    rows = [list(a) for a in inputs if len(a) > 1][:12]
    return [tuple(row[:j] + [other[j]] + row[j + 1:]) for row in rows for other in rows
            for j in range(len(row)) if len(other) == len(row) and other[j] != row[j]]


def _edits(value: Any, depth: int) -> Iterator[Any]:
    """Values one small edit away from `value`, of the same type (a list stays a list)."""
    if depth > _MAX_DEPTH:
        return
    if isinstance(value, bool):
        yield not value
    elif isinstance(value, int):
        yield from (value + 1, value - 1) if value else (1,)
    elif isinstance(value, float):
        yield from (value + 0.5, value * 2 if value else 1.0)
    elif isinstance(value, str):
        if value:
            yield from (value[::-1], value[1:], value + value[-1])
    elif isinstance(value, list):
        yield from _list_edits(value, depth)
    elif isinstance(value, dict):
        for k in list(value)[:4]:
            for new in _edits(value[k], depth + 1):
                yield {**value, k: new}


def _list_edits(value: list[Any], depth: int) -> Iterator[list[Any]]:
    if len(value) > 1:
        yield value[::-1]
        yield value[:-1]
        yield value[1:]
    for i in sorted({0, len(value) // 2, len(value) - 1}) if value else ():
        for new in _edits(value[i], depth + 1):
            yield value[:i] + [new] + value[i + 1:]
