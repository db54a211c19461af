"""How the supervisor decides that a returned value equals the expected one.

in: `got`, a value decoded from the candidate (plain builtins only), and `expected`, usually a JSON value
from the task. out: True or False, never an exception (whatever the two values are, a failure to compare is
False). Never runs in the candidate's process, never calls a candidate's method.

Rules, strict about types:
- None, bool, str, bytes: same type and equal. True is not 1, "1" is not 1, a str is not a list.
- int expected: got must be an int (not a bool, not a float): 2.0 does not equal 2.
- float expected: got may be an int or a float (not a bool) and is accepted when
  |got - expected| <= max(REL_TOL * max(|got|, |expected|), ABS_TOL), with REL_TOL = 1e-6 and ABS_TOL = 1e-9.
  NaN equals NaN (a reference that returns NaN expects NaN); an infinity equals only the same infinity (never an
  int). An int is compared exactly as a rational, never converted to float, so an int beyond the float range
  is simply far from a finite expected value instead of an OverflowError.
- list and tuple are interchangeable (JSON has no tuple) and compared element by element, in order.
- dict: same number of keys; every expected key present in got with a key of the same type; values compared
  by these rules.
- set and frozenset are interchangeable; elements compare exactly (same types, ==), no float tolerance.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

REL_TOL = 1e-6
ABS_TOL = 1e-9
_EXACT = (type(None), bool, str, bytes)


def values_equal(got: Any, expected: Any) -> bool:
    """True when `got` matches `expected` under the rules in this module's docstring; never raises."""
    try:
        return _equal(got, expected, 0)
    except Exception:  # noqa: BLE001 - a comparison that cannot be made is a mismatch, never a crash of the host
        return False


def _equal(got: Any, expected: Any, _depth: int) -> bool:
    if _depth > 200:
        return False
    te, tg = type(expected), type(got)
    if te in _EXACT:
        return tg is te and got == expected
    if te is int:
        return tg is int and got == expected
    if te is float:
        if tg is float:
            return _floats_close(got, expected)
        return tg is int and _int_close(got, expected)
    if te in (list, tuple):
        return (tg in (list, tuple) and len(got) == len(expected)
                and all(_equal(g, e, _depth + 1) for g, e in zip(got, expected)))
    if te is dict:
        if tg is not dict or len(got) != len(expected):
            return False
        # 1, 1.0 and True hash alike; keying by (type, key) keeps them apart. The table is built from the expected
        # keys and only looked up with the candidate's: distinct got keys each match a distinct expected key.
        typed = {(type(k), k): v for k, v in expected.items()}
        missing = object()
        return all((e := typed.get((type(k), k), missing)) is not missing and _equal(v, e, _depth + 1)
                   for k, v in got.items())
    if te in (set, frozenset):
        return tg in (set, frozenset) and _types(got) == _types(expected) and got == expected
    return False


def _floats_close(got: float, expected: float) -> bool:
    if math.isnan(expected) or math.isnan(got):
        return math.isnan(expected) and math.isnan(got)
    if math.isinf(expected) or math.isinf(got):
        return got == expected
    return abs(got - expected) <= max(REL_TOL * max(abs(got), abs(expected)), ABS_TOL)


def _int_close(got: int, expected: float) -> bool:
    """The float rule for an int, in exact rational arithmetic: no float conversion can overflow."""
    if math.isnan(expected) or math.isinf(expected):
        return False
    g, e = Fraction(got), Fraction(expected)
    return abs(g - e) <= max(Fraction(REL_TOL) * max(abs(g), abs(e)), Fraction(ABS_TOL))


def _types(values: Any) -> list[str]:
    return sorted(type(v).__name__ for v in values)
