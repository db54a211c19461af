"""A SQL task's database spec (each test's only argument) and its expected result set, as JSON.

Database spec: {"tables": [{"name": "products", "columns": [["id", "INTEGER"], ["name", "TEXT"], ...],
"rows": [[1, "pen", ...], ...]}, ...]}: names are plain identifiers, types INTEGER, REAL or TEXT, a cell an int
(INTEGER), a number (REAL), a string (TEXT) or null. Result set: {"columns": [...], "rows": [[[tag, value], ...]]},
each cell tagged with its SQLite type ("int", "real", "text", "null", "blob") so 3, 3.0, '3' and NULL stay apart
through JSON. Here: checks of both (a Problem naming the test and field), and the CREATE TABLE text for prompts.
"""

from __future__ import annotations

import re
from typing import Any

from spade.validate.outcome import Problem

TYPES = ("INTEGER", "REAL", "TEXT")
TAGS = ("int", "real", "text", "null", "blob")
MAX_TABLES = 8
MAX_COLUMNS = 32
MAX_ROWS = 2_000
MAX_TEXT = 1_000
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")


def spec_problem(spec: Any, where: str) -> Problem | None:
    """What is wrong with a database spec, or None. `where` names it (e.g. 'test_cases[0].input[0]')."""
    if not isinstance(spec, dict) or set(spec) != {"tables"} or not isinstance(spec["tables"], list):
        return Problem("bad_database", f"{where} must be {{\"tables\": [...]}}, a list of tables")
    tables = spec["tables"]
    if not 1 <= len(tables) <= MAX_TABLES:
        return Problem("bad_database", f"{where} has {len(tables)} tables; give 1 to {MAX_TABLES}")
    names = set()
    for i, table in enumerate(tables):
        at = f"{where}.tables[{i}]"
        if not isinstance(table, dict) or set(table) != {"name", "columns", "rows"}:
            return Problem("bad_database", f"{at} must be an object with 'name', 'columns' and 'rows'")
        name, columns, rows = table["name"], table["columns"], table["rows"]
        if not isinstance(name, str) or not _NAME.match(name) or name.lower() in names \
                or name.lower().startswith("sqlite_"):
            return Problem("bad_database", f"{at}.name = {str(name)[:40]!r} must be a new plain identifier")
        names.add(name.lower())
        problem = _columns_problem(columns, at) or _rows_problem(rows, columns, at)
        if problem:
            return problem
    return None


def _columns_problem(columns: Any, at: str) -> Problem | None:
    if not isinstance(columns, list) or not 1 <= len(columns) <= MAX_COLUMNS:
        return Problem("bad_database", f"{at}.columns must list 1 to {MAX_COLUMNS} [name, type] pairs")
    seen = set()
    for column in columns:
        if (not isinstance(column, list) or len(column) != 2 or not isinstance(column[0], str)
                or not _NAME.match(column[0]) or column[0].lower() in seen or column[1] not in TYPES):
            return Problem("bad_database", f"{at}.columns has {str(column)[:60]}; give [name, type] with a new "
                                           f"plain name and a type of {', '.join(TYPES)}")
        seen.add(column[0].lower())
    return None


def _rows_problem(rows: Any, columns: list, at: str) -> Problem | None:
    if not isinstance(rows, list) or len(rows) > MAX_ROWS:
        return Problem("bad_database", f"{at}.rows must be a list of at most {MAX_ROWS} rows")
    for r, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != len(columns):
            return Problem("bad_database", f"{at}.rows[{r}] must be a list of {len(columns)} values")
        for value, (column, kind) in zip(row, columns):
            if not _fits(value, kind):
                return Problem("bad_database", f"{at}.rows[{r}] column {column} = {str(value)[:40]!r} is not "
                                               f"{kind} (or null)")
    return None


def _fits(value: Any, kind: str) -> bool:
    if value is None:
        return True
    if kind == "INTEGER":
        return type(value) is int and -(1 << 63) <= value < 1 << 63
    if kind == "REAL":
        return type(value) in (int, float) and abs(value) < 1e300
    return type(value) is str and len(value) <= MAX_TEXT and "\0" not in value


def result_problem(value: Any, where: str) -> Problem | None:
    """What is wrong with an expected result set, or None."""
    if not isinstance(value, dict) or set(value) != {"columns", "rows"} or not isinstance(value["columns"], list) \
            or not all(isinstance(c, str) for c in value["columns"]) or not isinstance(value["rows"], list):
        return Problem("bad_expected", f"{where} must be {{\"columns\": [names], \"rows\": [[[tag, value], ...]]}}")
    width = len(value["columns"])
    for r, row in enumerate(value["rows"]):
        if not isinstance(row, list) or len(row) != width or not all(is_cell(c) for c in row):
            return Problem("bad_expected", f"{where}.rows[{r}] must be {width} cells like [\"int\", 3], "
                                           "[\"real\", 2.5], [\"text\", \"a\"], [\"null\", null]")
    return None


def is_cell(cell: Any) -> bool:
    if not isinstance(cell, list) or len(cell) != 2 or cell[0] not in TAGS:
        return False
    tag, value = cell
    return {"int": type(value) is int, "real": type(value) is float or value in ("inf", "-inf"),
            "text": type(value) is str, "null": value is None,
            "blob": type(value) is str and len(value) % 2 == 0}[tag]


def create_statements(spec: dict[str, Any]) -> str:
    """The spec's schema as CREATE TABLE statements (what the prompt shows)."""
    return "\n".join(f"CREATE TABLE {t['name']} ({', '.join(f'{c} {k}' for c, k in t['columns'])});"
                     for t in spec["tables"])


def sample_rows(spec: dict[str, Any], per_table: int) -> str:
    """The first rows of each table, as SQL literals, e.g. `products: (1, 'pen', 2.5)`."""
    lines = []
    for table in spec["tables"]:
        rows = table["rows"][:per_table]
        shown = ", ".join("(" + ", ".join(_literal(v) for v in row) + ")" for row in rows) or "(no rows)"
        more = f" … {len(table['rows'])} rows in all" if len(table["rows"]) > per_table else ""
        lines.append(f"{table['name']}: {shown}{more}")
    return "\n".join(lines)


def _literal(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return repr(value)
