"""Take the SQL statement out of a model completion.

In: the completion (by default it continues after the prefilled "```sql" fence). Out: the first non-empty ```sql
block as it is, else the first other fenced block that starts with SELECT/WITH/VALUES, else the first SELECT/WITH
statement in the prose up to its semicolon or a blank line; '' when there is none (a format failure). Nothing is
run or parsed here: the judge refuses what is not one query.
"""

from __future__ import annotations

import re

from spade.untrusted import clip

PREFILL = "```sql\n"
FENCE = "```"
MAX_CHARS = 20_000
_TAG = re.compile(r"^[A-Za-z0-9_+.-]*[ \t]*$")
_BARE = re.compile(r"(?is)\b(?:SELECT|WITH)\b.*?(?:;|\n\s*\n|$)")
# A comment ends at its first "*/": with ".*?" each run of "/**/" could be split 2^n ways before the match failed.
_STATEMENT = re.compile(r"(?is)^\s*(?:--[^\n]*\n\s*|/\*(?:[^*]|\*(?!/))*\*/\s*)*(?:SELECT|WITH|VALUES)\b")


def extract_sql(completion: str, *, prefilled: bool = True) -> str:
    text = (PREFILL if prefilled else "") + clip(completion, MAX_CHARS * 4).replace("\r\n", "\n")
    segments = text.split(FENCE)
    blocks = [segments[i] for i in range(1, len(segments), 2)]
    for block in blocks:  # a ```sql block is the answer whatever it holds (the judge refuses what is not a query)
        first, _, rest = block.partition("\n")
        if first.strip().lower() in ("sql", "sqlite") and rest.strip():
            return _trim(rest)
    for block in blocks:
        first, _, rest = block.partition("\n")
        body = rest if _TAG.match(first) else block
        if _STATEMENT.match(body):
            return _trim(body)
    prose = "".join(segments[i] for i in range(0, len(segments), 2))
    found = _BARE.search(prose)
    return _trim(found.group()) if found else ""


def _trim(sql: str) -> str:
    sql = sql.strip()
    return sql if len(sql) <= MAX_CHARS else ""
