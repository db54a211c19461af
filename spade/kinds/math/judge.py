"""The math kind's judge: a program run inside the sandbox (never imported on the host), grammar.py placed beside it.

stdin: one JSON object {"lib": [folders to find sympy in], "item_s": CPU seconds per item, "items": [...]}, each item
{"op": "canon", "form": spec, "text": reference} or {"op": "judge", "form": spec, "answer": text, "expected": text}.
stdout: one JSON line per item, in order, flushed as each ends: {"status": ok|wrong|form|refused|timeout|memory|
error, "detail": why, "shown": the value as parsed, "cpu": seconds} plus, for canon, "canon" (the canonical form)
and "wrong" (canonical forms of near misses: off by one, sign flipped, a set missing or gaining an item).
Text becomes SymPy objects only through grammar.py's tree, built node by node with bounded numbers; nothing is
sympified, parsed by SymPy or evaluated. A per-item CPU timer (SIGPROF) bounds simplification.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time

MAX_BITS = 20_000  # a rational's numerator or denominator; 2^20000 has ~6000 digits
MAX_EXPONENT = 100
MAX_FACTORIAL = 300
MAX_SHOWN = 300
MAX_CANON = 1000


class Overtime(BaseException):
    """Raised by the CPU timer; a BaseException so SymPy's `except Exception` blocks cannot swallow it."""


class Unfit(Exception):
    """The value cannot be judged (too large, division by zero, not a real number): a wrong answer."""


def main() -> None:
    request = json.loads(sys.stdin.read())
    sys.path[:0] = [os.getcwd()] + [p for p in request["lib"] if os.path.isdir(p)]
    import grammar
    import sympy

    signal.signal(signal.SIGPROF, _overtime)
    for item in request["items"]:
        started = time.process_time()
        signal.setitimer(signal.ITIMER_PROF, float(request["item_s"]))
        try:
            result = _one(item, grammar, sympy)
        except Overtime:
            result = {"status": "timeout", "detail": "judging ran past its CPU limit"}
        except MemoryError:
            result = {"status": "memory", "detail": "judging ran out of memory"}
        except RecursionError:
            result = {"status": "wrong", "detail": "the value is nested too deeply to judge"}
        except Exception as exc:  # noqa: BLE001  (SymPy failing on an odd value is the answer's verdict, not a crash)
            result = {"status": "error", "detail": f"{type(exc).__name__}: {str(exc)[:200]}"}
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
        result["cpu"] = round(time.process_time() - started, 6)
        sys.stdout.write(json.dumps(result) + "\n")
        sys.stdout.flush()


def _overtime(signum, frame):
    raise Overtime()


def _one(item, grammar, sp):
    form = grammar.parse_form(item["form"])
    text = item["text"] if item["op"] == "canon" else item["answer"]
    try:
        nodes = grammar.parse_answer(text, form)
    except grammar.Refused as exc:
        return {"status": "refused", "detail": str(exc)[:200]}
    for node in nodes:
        problem = grammar.form_problem(node, form)
        if problem is not None:
            return {"status": "form", "detail": problem}
    try:
        values = [_value(node, sp) for node in nodes]
        for value in values:
            _check_real(value, form, sp)
    except Unfit as exc:
        return {"status": "wrong", "detail": str(exc)[:200]}
    if form.is_set:
        values = _distinct(values, sp)
    shown = _render(values, form, sp)
    if item["op"] == "canon":
        if not values:
            return {"status": "wrong", "detail": "the reference gives no value"}
        if len(shown) > MAX_CANON:
            return {"status": "wrong", "detail": f"the canonical form is longer than {MAX_CANON} characters"}
        return {"status": "ok", "canon": shown, "wrong": _near_misses(values, form, sp), "shown": shown[:MAX_SHOWN]}
    expected = [_value(node, sp) for node in grammar.parse_answer(item["expected"], form)]
    if form.is_set:
        expected = _distinct(expected, sp)
    same = len(values) == len(expected) and all(any(_same(v, e, sp) for v in values) for e in expected)
    return {"status": "ok" if same else "wrong", "detail": "" if same else "not equal to the expected value",
            "shown": shown[:MAX_SHOWN]}


def _value(node, sp):
    """The SymPy value of a grammar tree, every number bounded before it is made."""
    kind = node[0]
    if kind == "int":
        return sp.Integer(int(node[1]))
    if kind == "dec":
        return sp.Rational(node[1])  # exact: 0.75 is 3/4
    if kind == "var":
        return sp.Symbol(node[1])
    if kind == "neg":
        return -_value(node[1], sp)
    if kind == "sqrt":
        return _bounded(sp.sqrt(_value(node[1], sp)))
    if kind == "fact":
        n = _value(node[1], sp)
        if not (n.is_Integer and 0 <= n <= MAX_FACTORIAL):
            raise Unfit(f"a factorial is taken only of a whole number up to {MAX_FACTORIAL}")
        return sp.factorial(n)
    a, b = _value(node[1], sp), _value(node[2], sp)
    if kind == "add":
        return _bounded(a + b)
    if kind == "sub":
        return _bounded(a - b)
    if kind == "mul":
        return _bounded(a * b)
    if kind == "div":
        if b == 0:
            raise Unfit("division by zero")
        return _bounded(a / b)
    return _power(a, b, sp)


def _power(base, exponent, sp):
    if exponent.free_symbols:
        return base ** exponent  # 2^(n - 1): left as a power, nothing is computed
    if not exponent.is_Rational or abs(exponent.p) > MAX_EXPONENT or exponent.q > MAX_EXPONENT:
        raise Unfit(f"an exponent must be a rational number within ±{MAX_EXPONENT}")
    if base == 0 and exponent < 0:
        raise Unfit("division by zero")
    if base.is_Rational and _bits(base) * abs(exponent.p) > MAX_BITS:
        raise Unfit("a power is too large to judge")
    return _bounded(base ** exponent)


def _bits(r) -> int:
    return max(int(r.p).bit_length(), int(r.q).bit_length())


def _bounded(value):
    for atom in (value.atoms() if not value.is_Rational else (value,)):
        if atom.is_Rational and _bits(atom) > MAX_BITS:
            raise Unfit("a number is too large to judge")
    return value


def _check_real(value, form, sp) -> None:
    if value.has(sp.zoo, sp.oo, sp.nan, sp.I):
        raise Unfit("the value is not a finite real number")
    if form.item in ("number", "constant") and value.is_real is False:
        raise Unfit("the value is not a real number")


def _same(a, b, sp) -> bool:
    difference = sp.expand(a - b)
    if difference == 0:
        return True
    if difference.is_Rational:
        return False
    if sp.simplify(difference) == 0:
        return True
    return difference.equals(0) is True


def _distinct(values, sp):
    kept = []
    for v in values:
        if not any(_same(v, k, sp) for k in kept):
            kept.append(v)
    return kept


def _render(values, form, sp) -> str:
    if form.name == "polynomial":
        values = [sp.expand(v) for v in values]
    if not form.is_set:
        return sp.sstr(values[0]) if values else ""
    ordered = sorted(values, key=lambda v: (float(sp.N(v)) if v.is_number else 0.0, sp.sstr(v)))
    return "{" + ", ".join(sp.sstr(v) for v in ordered) + "}"


def _near_misses(values, form, sp) -> list[str]:
    """Answers a judge must reject: off by one either way, the sign flipped; for sets, an item dropped or added."""
    if not form.is_set:
        value = values[0]
        misses = [value + 1, value - 1] + ([-value] if _bounded(sp.expand(value + value)) != 0 else [])
        return [_render([m], form, sp) for m in misses]
    shifted = [v + 1 for v in values]
    misses = [shifted, [v - 1 for v in values], values + [max(values, key=lambda v: float(sp.N(v))) + 1]]
    if len(values) > 1:
        misses.append(values[1:])
    return [_render(m, form, sp) for m in misses]


if __name__ == "__main__":
    main()
