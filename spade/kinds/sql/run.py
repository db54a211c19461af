"""Run SQL queries on a task's databases in the sandbox, through the judge program (judge.py, run as a job).

In: queries (untrusted text, sent on stdin with the databases, never put into code) and database specs. Out: per
query, why it was refused or one `QueryResult` per database. The judge's output is data: it is read back bounded
(lines, sizes, shapes) and anything malformed, missing or cut short is reported as the sandbox's failure.
"""

from __future__ import annotations

import json
from concurrent.futures import Future
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from spade.kinds.base import Scorer
from spade.kinds.sql.spec import is_cell
from spade.sandbox.program import ProgramJob, ProgramRun

SECONDS_PER_RUN = 1.0
"""Wall-clock limit for one query on one database (the judge's progress handler stops it there)."""
LIMITS = {"rows": 1000, "bytes": 100_000, "seconds": SECONDS_PER_RUN, "steps": 200_000,
          "heap_bytes": 128 << 20, "sql_chars": 20_000}
"""What the judge allows one query on one database: result rows and encoded bytes, seconds, progress steps (of
1,000 virtual machine instructions), SQLite heap, statement length."""
MEMORY_BYTES = 384 << 20
STATUSES = ("ok", "error", "refused", "timeout", "memory", "too_large", "not_run")


@dataclass(frozen=True, slots=True)
class QueryResult:
    status: str
    """ok, error, refused, timeout, memory, too_large, not_run; or internal_error (the judge gave no answer)."""
    result: dict[str, Any] | None = None
    """{"columns": [...], "rows": [[[tag, value], ...]]} when ok."""
    error: str = ""
    denied: tuple[str, ...] = ()
    """What the judge's authorizer refused (attach, pragma, function load_extension, delete, …)."""


@dataclass(frozen=True, slots=True)
class QueryRuns:
    """One query's fate: refused before it ran (`refused`), or its result on each database."""

    refused: str
    results: tuple[QueryResult, ...]


@cache
def judge_source() -> str:
    return (Path(__file__).parent / "judge.py").read_text()


def job(queries: list[str], databases: list[Any], reverse: tuple[int, ...] = ()) -> ProgramJob:
    """`reverse`: indices of queries run on copies of the databases whose tables hold their rows in reverse order."""
    runs = max(1, len(queries) * len(databases))
    request = {"queries": queries, "databases": databases, "limits": LIMITS, "reverse": list(reverse)}
    stdin = json.dumps(request).encode()
    return ProgramJob(judge_source(), stdin=stdin, time_limit_s=min(600.0, 5.0 + SECONDS_PER_RUN * runs),
                      memory_bytes=MEMORY_BYTES, max_output_bytes=min(64 << 20, runs * (LIMITS["bytes"] + 512) + 4096))


def submit(pool: Scorer, queries: list[str], databases: list[Any],
           reverse: tuple[int, ...] = ()) -> Future[ProgramRun]:
    return pool.submit_program(job(queries, databases, reverse))


def read_runs(run: ProgramRun, n_queries: int, n_databases: int) -> tuple[list[QueryRuns], str]:
    """The judge's lines as QueryRuns, one per query; queries it did not answer are all internal_error.
    Also how the job itself ended when that was not cleanly ('' when it was)."""
    trouble = "" if run.ok else (run.error or f"judge {run.verdict.value} (exit {run.exit_code}, signal {run.signal})"
                                 f": {run.stderr[-300:].decode('utf-8', 'replace')}")
    if run.stdout_bytes > len(run.stdout):
        trouble = trouble or "the judge's output was cut short"
    lines = run.stdout.split(b"\n")
    out = []
    for q in range(n_queries):
        parsed = _parse_line(lines[q], n_databases) if q < len(lines) else None
        if parsed is None:
            failed = QueryResult("internal_error", error=trouble or "the judge gave no answer for this query")
            parsed = QueryRuns("", (failed,) * n_databases)
        out.append(parsed)
    return out, trouble


def _parse_line(line: bytes, n_databases: int) -> QueryRuns | None:
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(obj, dict):
        return None
    if isinstance(obj.get("refused"), str):
        return QueryRuns(obj["refused"][:300] or "refused", ())
    items = obj.get("results")
    if not isinstance(items, list) or len(items) != n_databases:
        return None
    results = [_parse_result(item) for item in items]
    return None if any(r is None for r in results) else QueryRuns("", tuple(r for r in results if r is not None))


def _parse_result(item: Any) -> QueryResult | None:
    if not isinstance(item, dict) or item.get("status") not in STATUSES:
        return None
    error = item.get("error", "")
    denied = item.get("denied", [])
    if not isinstance(error, str) or not isinstance(denied, list) or not all(isinstance(d, str) for d in denied):
        return None
    if item["status"] != "ok":
        return QueryResult(item["status"], error=error[:300], denied=tuple(d[:60] for d in denied[:8]))
    columns, rows = item.get("columns"), item.get("rows")
    if not isinstance(columns, list) or not all(isinstance(c, str) for c in columns) or not isinstance(rows, list) \
            or len(rows) > LIMITS["rows"] \
            or not all(isinstance(r, list) and len(r) == len(columns) and all(map(is_cell, r)) for r in rows):
        return None
    return QueryResult("ok", {"columns": columns, "rows": rows})
