"""JSON and JSONL files a user wrote (tasks, samples), read without tracebacks.

In: a path, or text and where it came from. Out: plain JSON values. Strict UTF-8 (a BOM is allowed); integers
too long for Python's int/str limit come back as `BigInt` and containers nested deeper than the parser can
recurse come back as the string `DEEP_MARK`, so the caller's field checks can name the field. Other errors are
one-line TaskFormatErrors naming the file, the line and the fix.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spade.errors import TaskFormatError

MAX_INT_DIGITS = 4300  # CPython's default int/str conversion limit: a longer int cannot even be printed
_LIMIT = 10**MAX_INT_DIGITS
PARSE_DEPTH = 200  # nesting handed to the recursive parser; deeper containers are replaced by DEEP_MARK
DEEP_MARK = "\x00spade: nested too deep\x00"  # a NUL inside: no task value written by hand holds it


@dataclass(frozen=True, slots=True)
class BigInt:
    """An integer literal over MAX_INT_DIGITS digits, kept as text (converting it would raise)."""

    text: str

    @property
    def digits(self) -> int:
        return len(self.text.lstrip("-"))


def _parse_int(text: str) -> int | BigInt:
    return BigInt(text) if len(text.lstrip("-")) > MAX_INT_DIGITS else int(text)


_FAST = json.JSONDecoder()  # int() per literal in C; raises ValueError past MAX_INT_DIGITS
_DECODER = json.JSONDecoder(parse_int=_parse_int)  # a Python call per integer: only when _FAST refused one
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def read_text(path: Path, what: str) -> str:
    """The text of a UTF-8 file; one line naming the file, the line and the fix when it is not UTF-8."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TaskFormatError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise TaskFormatError(
            f"{path}:{line}: {what} is not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            f"save it as UTF-8, e.g. `iconv -f latin1 -t utf-8 {path.name}`"
        ) from None


def parse(text: str, where: str) -> Any:
    """One JSON value; TaskFormatError naming `where` when the text is not JSON."""
    try:
        return _loads(text, where)
    except RecursionError:
        # The C parser recurses once per level: cut every container deeper than PARSE_DEPTH out of the text, so the
        # document parses and the field check can say which field held it.
        return _loads(_cut_deep(text, PARSE_DEPTH), where)


def _loads(text: str, where: str) -> Any:
    start = len(text) - len(text.lstrip())
    try:
        try:
            value, end = _FAST.raw_decode(text, start)
        except json.JSONDecodeError:
            raise
        except ValueError:  # an integer over the digit limit: parse again, keeping such integers as BigInt
            value, end = _DECODER.raw_decode(text, start)
    except json.JSONDecodeError as exc:
        at = f"line {exc.lineno} column {exc.colno}" if "\n" in text.strip() else f"column {exc.colno}"
        raise TaskFormatError(f"{where}: not valid JSON ({exc.msg} at {at})") from None
    if text[end:].strip():
        raise TaskFormatError(f"{where}: not valid JSON (extra data after the first value at offset {end}); "
                              "put one task per line in a .jsonl file, or a list of tasks in a .json file")
    return value


def _cut_deep(text: str, limit: int) -> str:
    """`text` with each outermost container that opens below depth `limit` replaced by the DEEP_MARK string."""
    pieces, depth, start, last = [], 0, -1, 0
    for m in _TOKENS.finditer(text):
        tok = m.group()
        if tok == "[" or tok == "{":
            depth += 1
            if depth == limit + 1:
                start = m.start()
        elif tok == "]" or tok == "}":
            if depth == limit + 1 and start >= 0:
                pieces += [text[last:start], json.dumps(DEEP_MARK)]
                last, start = m.end(), -1
            depth -= 1
    if start >= 0:  # never closed: the parser will say where the text ends
        pieces += [text[last:start], json.dumps(DEEP_MARK)]
        last = len(text)
    return "".join(pieces) + text[last:]


def too_long(v: object) -> bool:
    """An integer (parsed or built in code) with more than MAX_INT_DIGITS digits: it cannot be printed."""
    return isinstance(v, BigInt) or (type(v) is int and v.bit_length() > 14_000 and abs(v) >= _LIMIT)


def digits(v: int | BigInt) -> int:
    """Decimal digits of an integer, estimated from its bit length (printing it may be impossible)."""
    return v.digits if isinstance(v, BigInt) else int(v.bit_length() * math.log10(2)) + 1


def short(value: Any, width: int = 48) -> str:
    """A repr of `value` cut to about `width` characters, safe for values too deep or too long to repr."""
    out: list[str] = []
    _sketch(value, out, width + 1, 0)
    text = "".join(out)
    return text if len(text) <= width else text[: width - 1] + "…"


def _sketch(v: Any, out: list[str], budget: int, depth: int) -> None:
    if sum(map(len, out)) > budget:
        return
    if isinstance(v, BigInt):
        out.append(f"{v.text[:12]}…({v.digits} digits)")
    elif too_long(v):
        out.append(f"<int of {digits(v)} digits>")
    elif isinstance(v, (list, tuple, dict)) and v:
        if depth >= 6:
            out.append("…")
            return
        opener, closer = ("{", "}") if isinstance(v, dict) else ("(", ")") if isinstance(v, tuple) else ("[", "]")
        out.append(opener)
        for n, item in enumerate(v.items() if isinstance(v, dict) else v):
            if sum(map(len, out)) > budget:
                break
            out.append(", " if n else "")
            if isinstance(v, dict):
                _sketch(item[0], out, budget, depth + 1)
                out.append(": ")
                item = item[1]
            _sketch(item, out, budget, depth + 1)
        out.append(closer)
    elif isinstance(v, str):
        out.append(repr(v[:budget]))
    else:
        out.append(repr(v)[:budget])
