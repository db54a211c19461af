"""Chat prompts for a SQL task: a worked example (a question about another, fixed table and its query), then the
task's schema as CREATE TABLE statements, a few rows of the first public test's database, and the question; the
answer is one SQLite query in a ```sql block (the prefill opens it).

In: a Task and a variant index. Out: a `Prompt`. Hidden tests' databases and all expected results stay unseen.
The example's table (`pets`) is never a task's, so copying its query fails; it shows the answer's shape: the
columns asked for, in the order asked, from the table named, one statement, the block closed.
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
EXAMPLE = (f"CREATE TABLE {EXAMPLE_TABLE} (id INTEGER, name TEXT, species TEXT, age INTEGER);\n\n"
           f"Question: List the `name` of every row of table `{EXAMPLE_TABLE}` whose `species` is 'cat'.\n"
           f"{PREFILL}SELECT name FROM {EXAMPLE_TABLE} WHERE species = 'cat';\n```\n\n"
           f"Question: Return the `species` and the `age` of every row of table `{EXAMPLE_TABLE}` whose `age` is "
           "greater than 3.\n"
           f"{PREFILL}SELECT species, age FROM {EXAMPLE_TABLE} WHERE age > 3;\n```\n\n"
           f"Question: Return the number of rows of table `{EXAMPLE_TABLE}` whose `species` is 'dog' (one value).\n"
           f"{PREFILL}SELECT COUNT(*) FROM {EXAMPLE_TABLE} WHERE species = 'dog';\n```")


def build_prompt(task: Task, variant: int = 0) -> Prompt:
    v = variant % VARIANTS
    spec = task.test_cases[0].args[0] if task.test_cases and task.test_cases[0].args else {"tables": []}
    order = ("Return the rows in exactly the order asked for." if task.params.get("ordered")
             else "Row order does not matter.")
    user = (f"Examples:\n{EXAMPLE}\n\n"
            f"Your database (SQLite):\n{create_statements(spec)}\n\n"
            f"Some of its rows:\n{sample_rows(spec, SAMPLE_ROWS)}\n\n"
            f"Question: {task.description.strip()}\n{order}\n"
            "Use only the tables and columns above; return exactly the columns asked for, in that order. "
            "The query runs on other databases with this schema too. "
            "Answer with one SQLite SELECT statement in a ```sql block.")
    messages = ({"role": "system", "content": _SYSTEM[v]}, {"role": "user", "content": user})
    return Prompt(messages, PREFILL, v, prompt_hash(messages, PREFILL))
