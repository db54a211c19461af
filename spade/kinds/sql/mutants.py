"""Wrong queries made from a reference query, one change each, for validation to tell apart with the tests.

In: SQL text. Out: (kind, mutant text) pairs, deterministic: the WHERE or HAVING clause dropped (made `1 OR …`),
comparisons off by one (`>` / `>=`, `<` / `<=`, `=` / `<>`), aggregates and ranking functions swapped (SUM/AVG,
MIN/MAX, RANK/DENSE_RANK), AND/OR swapped, NOT, DISTINCT or LEFT dropped, sort directions flipped,
number literals moved by one. String literals, quoted names and comments are left alone.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r"""'(?:[^']|'')*'|"(?:[^"]|"")*"|--[^\n]*|/\*.*?\*/|\d+\.\d*|\d+|[A-Za-z_][A-Za-z0-9_]*"""
                    r"""|<=|>=|<>|!=|==|\s+|.""", re.DOTALL)
_SWAP = {">": ">=", ">=": ">", "<": "<=", "<=": "<", "=": "<>", "==": "<>", "<>": "=", "!=": "="}
# ROW_NUMBER has no swap: over a total order (what a question needs to be answerable) RANK equals it.
_WORDS = {"sum": "AVG", "avg": "SUM", "min": "MAX", "max": "MIN", "rank": "DENSE_RANK", "dense_rank": "RANK",
          "and": "OR", "or": "AND", "asc": "DESC", "desc": "ASC"}
DROP_CLAUSE = ("drop_where", "drop_having")
"""Mutants a task's tests must always catch (what a question's filter means)."""


def sql_mutants(sql: str, limit: int = 16) -> list[tuple[str, str]]:
    tokens = _TOKEN.findall(sql)
    out: list[tuple[str, str]] = []
    seen = {sql}

    def add(kind: str, i: int, text: str) -> None:
        mutant = "".join(tokens[:i]) + text + "".join(tokens[i + 1:])
        if mutant not in seen:
            seen.add(mutant)
            out.append((kind, mutant))

    for i, token in enumerate(tokens):
        low = token.lower()
        if low in ("where", "having"):
            add(f"drop_{low}", i, f"{token} 1 OR")
        elif token in _SWAP:
            add("comparison", i, _SWAP[token])
        elif low in _WORDS:
            add("word", i, _WORDS[low])
        elif low in ("not", "distinct", "left"):
            add(f"drop_{low}", i, "")
        elif token[0].isdigit():
            add("number", i, str(int(token) + 1) if token.isdigit() else repr(float(token) + 1))
    required = [m for m in out if m[0] in DROP_CLAUSE]
    others = [m for m in out if m[0] not in DROP_CLAUSE]
    room = max(0, limit - len(required))
    step = max(1, -(-len(others) // room)) if room else len(others) + 1
    return required + others[::step][:room]
