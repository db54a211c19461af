"""Chat prompts for a SQL task: worked examples (questions about another, fixed table and their queries), then the
task's schema as CREATE TABLE statements, a few rows of the first public test's database, and the question; the
answer is one SQLite query in a ```sql block (the prefill opens it).

In: a Task and a variant index. Out: a `Prompt`. Hidden tests' databases and all expected results stay unseen.
The examples' table (`pets`) is never a task's, so copying a query fails; they show the answer's shape: the
columns asked for, in the order asked, from the table named, one statement, the block closed. Without them the
embedded 135M model passed 0 of 40 first-step samples, listing every column it could think of; with one example
returning two columns it copied both into every answer (0 of 40); with these three, 6-7 of 40.
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
EXAMPLE_TABLE = "pets"
EXAMPLE_SCHEMA = f"CREATE TABLE {EXAMPLE_TABLE} (id INTEGER, name TEXT, species TEXT, age INTEGER);"
EXAMPLES = (
    (f"List the `name` of every row of table `{EXAMPLE_TABLE}` whose `species` is 'cat'.",
     f"SELECT name FROM {EXAMPLE_TABLE} WHERE species = 'cat';"),
    (f"Return the `species` and the `age` of every row of table `{EXAMPLE_TABLE}` whose `age` is greater than 3.",
     f"SELECT species, age FROM {EXAMPLE_TABLE} WHERE age > 3;"),
    (f"Return the number of rows of table `{EXAMPLE_TABLE}` whose `species` is 'dog' (one value).",
     f"SELECT COUNT(*) FROM {EXAMPLE_TABLE} WHERE species = 'dog';"),
)
"""(question, query) pairs on EXAMPLE_SCHEMA, worded like the first-step questions (families.py)."""


def examples_text() -> str:
    shown = "\n\n".join(f"Question: {q}\n{PREFILL}{sql}\n```" for q, sql in EXAMPLES)
    return f"Examples:\n{EXAMPLE_SCHEMA}\n\n{shown}"


def build_prompt(task: Task, variant: int = 0) -> Prompt:
    v = variant % VARIANTS
    spec = task.test_cases[0].args[0] if task.test_cases and task.test_cases[0].args else {"tables": []}
    order = ("Return the rows in exactly the order asked for." if task.params.get("ordered")
             else "Row order does not matter.")
    user = (f"{examples_text()}\n\n"
            f"Your database (SQLite):\n{create_statements(spec)}\n\n"
            f"Some of its rows:\n{sample_rows(spec, SAMPLE_ROWS)}\n\n"
            f"Question: {task.description.strip()}\n{order}\n"
            "Use only the tables and columns above; return exactly the columns asked for, in that order. "
            "The query runs on other databases with this schema too. "
            "Answer with one SQLite SELECT statement in a ```sql block.")
    messages = ({"role": "system", "content": _SYSTEM[v]}, {"role": "user", "content": user})
    return Prompt(messages, PREFILL, v, prompt_hash(messages, PREFILL))
