"""How the supervisor decides that a returned value equals the expected one.

in: `got`, a value decoded from the candidate (plain builtins only), and `expected`, usually a JSON value
from the task. out: True or False. Never runs in the candidate's process, never calls a candidate's method.

Rules, strict about types:
- None, bool, str, bytes: same type and equal. True is not 1, "1" is not 1, a str is not a list.
- int expected: got must be an int (not a bool, not a float): 2.0 does not equal 2.
- float expected: got may be an int or a float (not a bool) and is accepted when
  |got - expected| <= max(REL_TOL * max(|got|, |expected|), ABS_TOL), with REL_TOL = 1e-6 and ABS_TOL = 1e-9.
  NaN equals NaN (a reference that returns NaN expects NaN); an infinity equals only the same infinity.
- list and tuple are interchangeable (JSON has no tuple) and compared element by element, in order.
- dict: same number of keys; every expected key present in got with a key of the same type; values compared
  by these rules.
- set and frozenset are interchangeable; elements compare exactly (same types, ==), no float tolerance.
"""

from __future__ import annotations

import math
from typing import Any

REL_TOL = 1e-6
ABS_TOL = 1e-9
_EXACT = (type(None), bool, str, bytes)


def values_equal(got: Any, expected: Any, _depth: int = 0) -> bool:
    """True when `got` matches `expected` under the rules in this module's docstring."""
    if _depth > 200:
        return False
    te, tg = type(expected), type(got)
    if te in _EXACT:
        return tg is te and got == expected
    if te is int:
        return tg is int and got == expected
    if te is float:
        return tg in (int, float) and _floats_close(float(got), expected)
    if te in (list, tuple):
        return (tg in (list, tuple) and len(got) == len(expected)
                and all(values_equal(g, e, _depth + 1) for g, e in zip(got, expected)))
    if te is dict:
        if tg is not dict or len(got) != len(expected):
            return False
        # 1, 1.0 and True hash alike; keying by (type, key) keeps them apart.
        typed = {(type(k), k): v for k, v in got.items()}
        return all((type(k), k) in typed and values_equal(typed[(type(k), k)], v, _depth + 1)
                   for k, v in expected.items())
    if te in (set, frozenset):
        return tg in (set, frozenset) and _types(got) == _types(expected) and got == expected
    return False


def _floats_close(got: float, expected: float) -> bool:
    if math.isnan(expected) or math.isnan(got):
        return math.isnan(expected) and math.isnan(got)
    if math.isinf(expected) or math.isinf(got):
        return got == expected
    return abs(got - expected) <= max(REL_TOL * max(abs(got), abs(expected)), ABS_TOL)


def _types(values: Any) -> list[str]:
    return sorted(type(v).__name__ for v in values)
