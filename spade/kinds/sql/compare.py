"""Result-set comparison for SQL answers, on the host, over values the judge returned with their SQLite types.

Two result sets are equal when they have the same number of columns and the same rows: as sequences when the
task asks for an order (`params.ordered`), else as multisets (duplicates count). Cells compare by type and value:
an int is never a real, NULL only equals NULL; reals compare after rounding to 10 significant digits, so a sum
taken in another order still matches. Column names are not compared.
"""

from __future__ import annotations

import json
from typing import Any

REAL_DIGITS = 10


def same_result(expected: dict[str, Any], got: dict[str, Any], ordered: bool) -> bool:
    if len(expected["columns"]) != len(got["columns"]) or len(expected["rows"]) != len(got["rows"]):
        return False
    want = [row_key(r) for r in expected["rows"]]
    have = [row_key(r) for r in got["rows"]]
    return want == have if ordered else sorted(want) == sorted(have)


def row_key(row: list[list[Any]]) -> str:
    return json.dumps([_cell_key(c) for c in row], separators=(",", ":"))


def _cell_key(cell: list[Any]) -> list[Any]:
    tag, value = cell
    if tag == "real" and type(value) is float:
        return [tag, float(f"{value:.{REAL_DIGITS}g}")]
    return [tag, value]


def show(result: dict[str, Any], rows: int = 3, chars: int = 200) -> str:
    """A short rendering of a result set for a verdict's `got`."""
    body = [[c[1] for c in r] for r in result["rows"][:rows]]
    more = f" … ({len(result['rows'])} rows)" if len(result["rows"]) > rows else ""
    return (json.dumps(body)[:chars] + more)[: chars + 20]
