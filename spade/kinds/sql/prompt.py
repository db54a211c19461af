"""Chat prompts for a SQL task: the schema as CREATE TABLE statements, a few rows of the first public test's
database, and the question; the answer is one SQLite query in a ```sql block (the prefill opens it).

In: a Task and a variant index. Out: a `Prompt`. Hidden tests' databases and all expected results stay unseen.
"""

from __future__ import annotations

from spade.kinds.base import Prompt, prompt_hash
from spade.kinds.sql.extract import PREFILL
from spade.kinds.sql.spec import create_statements, sample_rows
from spade.records import Task

SAMPLE_ROWS = 3
_SYSTEM = (
    "You are an expert in SQL. You write correct SQLite queries.",
    "You are a careful data analyst who answers questions with one SQLite SELECT statement.",
)
VARIANTS = len(_SYSTEM)


def build_prompt(task: Task, variant: int = 0) -> Prompt:
    v = variant % VARIANTS
    spec = task.test_cases[0].args[0] if task.test_cases and task.test_cases[0].args else {"tables": []}
    order = ("Return the rows in exactly the order asked for." if task.params.get("ordered")
             else "Row order does not matter.")
    user = (f"Database schema (SQLite):\n{create_statements(spec)}\n\n"
            f"Example rows:\n{sample_rows(spec, SAMPLE_ROWS)}\n\n"
            f"Question: {task.description.strip()}\n{order}\n"
            "The query runs on other databases with this schema too. "
            "Answer with one SQLite SELECT statement in a ```sql block.")
    messages = ({"role": "system", "content": _SYSTEM[v]}, {"role": "user", "content": user})
    return Prompt(messages, PREFILL, v, prompt_hash(messages, PREFILL))
