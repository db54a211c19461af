"""The SQL kind's judge: a program the sandbox runs (read as text, never imported by SPADE itself).

stdin: one JSON object {"queries": [sql, ...], "databases": [spec, ...], "limits": {...}, "reverse": [indices
of queries to run on copies of the databases with every table's rows inserted in reverse order]}. For each query,
in order, it prints one JSON line {"refused": why} or {"results": [one result per database]}, each result
{"status": "ok", "columns": [...], "rows": [[[tag, value], ...], ...]} or {"status": s, "error": why} with s one of
error, refused, timeout, memory, too_large, not_run. Each database is built in memory from its spec; then every
query runs under an authorizer (SELECT, reads, functions and recursive CTEs only: no ATTACH, pragmas, writes,
schema changes, transactions or load_extension), a progress handler (steps and a wall-clock deadline), SQLite's
own limits and a hard heap limit. A query's first timeout or memory failure ends it: its later databases are not run.
"""

import json
import re
import sqlite3
import sys
import time

_ALLOWED = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION,
            getattr(sqlite3, "SQLITE_RECURSIVE", 33)}
_DENIED_FUNCTIONS = {"load_extension", "fts3_tokenizer", "readfile", "writefile", "edit", "sqlite_offset"}
_ACTIONS = {getattr(sqlite3, "SQLITE_" + n.upper()): n for n in (  # authorizer action codes, named for the verdict
    "attach", "detach", "pragma", "insert", "update", "delete", "transaction", "savepoint", "alter_table", "reindex",
    "analyze", "create_table", "create_temp_table", "create_index", "create_view", "create_trigger", "create_vtable",
    "drop_table", "drop_index", "drop_view", "drop_trigger", "drop_vtable") if hasattr(sqlite3, "SQLITE_" + n.upper())}
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")
_TYPES = ("INTEGER", "REAL", "TEXT")
_COMMENT_OR_SPACE = re.compile(r"(\s+|--[^\n]*(\n|$)|/\*.*?(\*/|$))", re.DOTALL)
_FIRST_WORD = re.compile(r"[A-Za-z]+")
_LEXEME = re.compile(r"""'(?:[^']|'')*'?|"(?:[^"]|"")*"?|`[^`]*`?|\[[^\]]*\]?|--[^\n]*|/\*.*?(?:\*/|$)|;"""
                     r"""|[^'"`\[;/-]+|.""",
                     re.DOTALL)
_STARTS = ("SELECT", "WITH", "VALUES")
_LIMITS = (  # (name, value): a candidate's statement stays small and shallow; nothing can be attached
    ("SQLITE_LIMIT_ATTACHED", 0), ("SQLITE_LIMIT_LENGTH", 1_000_000), ("SQLITE_LIMIT_SQL_LENGTH", 100_000),
    ("SQLITE_LIMIT_COLUMN", 200), ("SQLITE_LIMIT_EXPR_DEPTH", 200), ("SQLITE_LIMIT_COMPOUND_SELECT", 50),
    ("SQLITE_LIMIT_VDBE_OP", 100_000), ("SQLITE_LIMIT_FUNCTION_ARG", 16), ("SQLITE_LIMIT_LIKE_PATTERN_LENGTH", 1000),
    ("SQLITE_LIMIT_VARIABLE_NUMBER", 0), ("SQLITE_LIMIT_TRIGGER_DEPTH", 1), ("SQLITE_LIMIT_WORKER_THREADS", 0),
)


def main():
    request = json.loads(sys.stdin.read())
    limits = request["limits"]
    queries = request["queries"]
    reversed_rows = set(request.get("reverse", []))
    databases = [build(spec, limits, False) for spec in request["databases"]]
    # Validation runs the reference again on copies holding each table's rows in reverse order: rows a query
    # leaves unordered (ties in its ORDER BY, LIMIT without one) then come out differently.
    flipped = [build(spec, limits, True) for spec in request["databases"]] if reversed_rows else []
    for q, query in enumerate(queries):
        why = refusal(query, limits)
        if why:
            emit({"refused": why})
            continue
        results, stop = [], False
        for con in flipped if q in reversed_rows else databases:
            if stop:
                results.append({"status": "not_run"})
                continue
            result = run(con, query, limits)
            stop = result["status"] in ("timeout", "memory")
            results.append(result)
        emit({"results": results})


def emit(obj):
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def refusal(query, limits):
    """Why the query is refused before it runs ('' when it may run): one statement starting SELECT, WITH or VALUES."""
    if not isinstance(query, str) or not query.strip():
        return "no SQL statement"
    if len(query) > limits["sql_chars"]:
        return f"the statement has {len(query)} characters; at most {limits['sql_chars']}"
    at = 0
    while (skip := _COMMENT_OR_SPACE.match(query, at)) and skip.end() > at:
        at = skip.end()
    word = _FIRST_WORD.match(query, at)
    if not word or word.group().upper() not in _STARTS:
        return "only a SELECT (or WITH ... SELECT, or VALUES) statement is allowed"
    lexemes = _LEXEME.findall(query, at)
    if ";" in lexemes:
        after = lexemes[lexemes.index(";") + 1:]
        if any(x.strip() and not x.startswith(("--", "/*")) for x in after):
            return "only one statement is allowed"
    return ""


def build(spec, limits, reverse):
    """An in-memory database holding the spec's tables (each table's rows in reverse order when `reverse`), locked
    down for candidate queries."""
    con = sqlite3.connect(":memory:", isolation_level=None)
    con.text_factory = lambda b: b.decode("utf-8", "replace")
    con.execute("PRAGMA temp_store = MEMORY")  # sorts and temporary tables stay in memory, under the heap limit
    con.execute(f"PRAGMA hard_heap_limit = {int(limits['heap_bytes'])}")
    for table in spec["tables"]:
        name, columns = table["name"], table["columns"]
        if not _NAME.match(name) or not all(_NAME.match(c) and t in _TYPES for c, t in columns):
            raise ValueError(f"table {name!r:.80}: bad name or column")
        con.execute(f'CREATE TABLE "{name}" ({", ".join(f"{chr(34)}{c}{chr(34)} {t}" for c, t in columns)})')
        marks = ", ".join("?" for _ in columns)
        rows = [tuple(row) for row in table["rows"]]
        con.executemany(f'INSERT INTO "{name}" VALUES ({marks})', rows[::-1] if reverse else rows)
    for name, value in _LIMITS:
        if hasattr(sqlite3, name):
            con.setlimit(getattr(sqlite3, name), value)
    return con


def run(con, query, limits):
    denied = []
    clock = {"deadline": 0.0, "steps": 0, "timed_out": False}

    def authorize(action, arg1, arg2, db_name, trigger):
        if action in _ALLOWED and not (action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() in _DENIED_FUNCTIONS):
            return sqlite3.SQLITE_OK
        denied.append(_ACTIONS.get(action) or (f"function {arg2}" if action == sqlite3.SQLITE_FUNCTION
                                                 else f"action {action}"))
        return sqlite3.SQLITE_DENY

    def progress():
        clock["steps"] += 1
        if clock["steps"] > limits["steps"] or time.monotonic() > clock["deadline"]:
            clock["timed_out"] = True
            return 1
        return 0

    con.set_authorizer(authorize)
    con.set_progress_handler(progress, 1000)
    clock["deadline"] = time.monotonic() + limits["seconds"]
    cursor = con.cursor()
    try:
        cursor.execute(query)
        if cursor.description is None:
            return {"status": "refused", "error": "the statement returns no rows (only queries are allowed)"}
        columns = [str(d[0])[:100] for d in cursor.description]
        rows, size = [], 0
        while True:
            batch = cursor.fetchmany(200)
            if not batch:
                break
            for row in batch:
                cells = [cell(v) for v in row]
                size += sum(8 + (len(c[1]) if isinstance(c[1], str) else 8) for c in cells)
                rows.append(cells)
                if len(rows) > limits["rows"] or size > limits["bytes"]:
                    return {"status": "too_large", "error": f"more than {limits['rows']} rows or {limits['bytes']} "
                                                             "bytes of result"}
        return {"status": "ok", "columns": columns, "rows": rows}
    except MemoryError:
        return {"status": "memory", "error": "out of memory"}
    except (sqlite3.Error, sqlite3.Warning, ValueError, OverflowError) as e:
        if clock["timed_out"]:
            return {"status": "timeout", "error": f"over {limits['seconds']} s or {limits['steps']}k steps"}
        if denied:  # reported before the error text: the authorizer's refusal is what stopped it
            return {"status": "refused", "error": f"not authorized: {denied[0]}", "denied": sorted(set(denied))[:8]}
        if "one statement at a time" in str(e):
            return {"status": "refused", "error": "only one statement is allowed"}
        if "out of memory" in str(e):
            return {"status": "memory", "error": "out of memory"}
        return {"status": "error", "error": f"{type(e).__name__}: {e}"[:300]}
    finally:
        cursor.close()
        con.set_progress_handler(None, 0)
        con.set_authorizer(None)


def cell(value):
    """A value with its SQLite type: ["int", 3], ["real", 2.5] (or "inf"/"-inf"), ["text", "a"], ["null", None],
    ["blob", hex]."""
    if value is None:
        return ["null", None]
    if type(value) is int:
        return ["int", value]
    if type(value) is float:
        return ["real", value if value - value == 0 else ("inf" if value > 0 else "-inf")]
    if type(value) is str:
        return ["text", value]
    return ["blob", bytes(value).hex()]


if __name__ == "__main__":
    main()
