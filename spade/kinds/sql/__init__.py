"""The SQL task kind: answer a question about a SQLite database with one query, judged by its result set.

Each test's only argument is a database spec (spec.py); the expected value is the reference query's result set on
that database, computed by running it in the sandbox (validation.py). Shown as the schema, sample rows and the
question (prompt.py); the answer is the ```sql block (extract.py); it runs in the sandbox through the judge program
(judge.py, run.py) with ATTACH, pragmas, writes and extensions refused and time, rows and memory bounded, and
is compared on the host, types and NULLs exact (compare.py, execute.py). Screened for escape attempts and writes.
Families: families.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from spade.kinds import register
from spade.kinds.base import Prompt, Scorer
from spade.kinds.sql.extract import extract_sql
from spade.kinds.sql.prompt import build_prompt
from spade.records import ExecResult, Task, TaskDraft

if TYPE_CHECKING:
    from spade.config import GenerationConfig
    from spade.validate.outcome import ValidationOutcome

SQL = "sql"
_LITERAL = re.compile(r"'(?:[^']|'')*'")
_ESCAPE = re.compile(r"(?i)\b(?:ATTACH|DETACH|PRAGMA|VACUUM|load_extension|readfile|writefile|fts3_tokenizer)\b")
_WRITE = re.compile(r"(?i)\b(?:INSERT\s+(?:OR\s+\w+\s+)?INTO|REPLACE\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM"
                    r"|DROP\s+(?:TABLE|VIEW|INDEX|TRIGGER)|CREATE\s+(?:TEMP|TEMPORARY|TABLE|VIEW|INDEX|TRIGGER"
                    r"|VIRTUAL|UNIQUE)|ALTER\s+TABLE|REINDEX|ANALYZE)\b")


class Sql:
    name = SQL

    def prompt(self, task: Task, variant: int) -> Prompt:
        return build_prompt(task, variant)

    def extract(self, task: Task, completion: str, *, prefilled: bool = True) -> str:
        return extract_sql(completion, prefilled=prefilled)

    def screen(self, answer: str) -> tuple[str, ...]:
        """sql_escape: ATTACH, DETACH, PRAGMA, VACUUM or file/extension functions; sql_write: statements that write.
        Both are refused by the judge anyway; the finding records the attempt."""
        text = _LITERAL.sub("''", answer)
        return tuple(code for code, pattern in (("sql_escape", _ESCAPE), ("sql_write", _WRITE)) if pattern.search(text))

    def execute(self, pool: Scorer, items: Sequence[tuple[Task, str]],
                on_done: Callable[[int], None] | None = None) -> list[ExecResult]:
        from spade.kinds.sql.execute import execute

        return execute(pool, items, on_done)

    def validate(self, tasks: Sequence[Task], pool: Scorer | None, cfg: GenerationConfig) -> list[ValidationOutcome]:
        from spade.kinds.sql.validation import validate_tasks

        return validate_tasks(tasks, pool, cfg)

    def validate_drafts(self, drafts: Sequence[TaskDraft], pool: Scorer,
                        cfg: GenerationConfig) -> list[ValidationOutcome]:
        from spade.kinds.sql.validation import validate_drafts

        return validate_drafts(drafts, pool, cfg)


KIND = register(Sql())

from spade.kinds.sql import families  # noqa: F401  (registers the sql_* families)
