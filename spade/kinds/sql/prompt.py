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
JOIN_TABLE = "visits"
JOIN_SCHEMA = f"CREATE TABLE {JOIN_TABLE} (id INTEGER, pet_id INTEGER, day TEXT);"
FAMILY_EXAMPLES = {
    "sql_aggregate": (f"How many rows of table `{EXAMPLE_TABLE}` are there whose `species` is 'cat'? Return that "
                      f"number.",
                      f"SELECT COUNT(*) FROM {EXAMPLE_TABLE} WHERE species = 'cat';"),
    "sql_join": (f"For every row of table `{JOIN_TABLE}`, return its `day` and the `name` of its pet (join "
                 f"`{EXAMPLE_TABLE}` on `{JOIN_TABLE}.pet_id = {EXAMPLE_TABLE}.id`).",
                 f"SELECT {JOIN_TABLE}.day, {EXAMPLE_TABLE}.name FROM {JOIN_TABLE} JOIN {EXAMPLE_TABLE} "
                 f"ON {JOIN_TABLE}.pet_id = {EXAMPLE_TABLE}.id;"),
    "sql_subquery": (f"List the `name` of every row of table `{EXAMPLE_TABLE}` whose `age` is above the average "
                     f"`age` of all rows of `{EXAMPLE_TABLE}`.",
                     f"SELECT name FROM {EXAMPLE_TABLE} WHERE age > (SELECT AVG(age) FROM {EXAMPLE_TABLE});"),
    "sql_window": (f"Return the `name` and the position (1 for the first) of every row of table `{EXAMPLE_TABLE}` "
                   f"when the rows are sorted by `age` from highest to lowest, ties broken by `name`: use "
                   f"ROW_NUMBER().",
                   f"SELECT name, ROW_NUMBER() OVER (ORDER BY age DESC, name) FROM {EXAMPLE_TABLE};"),
}
"""A fourth example per family, the shape of its easiest question (families.py, level 0), on tables no task uses;
sql_filter has none (its level 0 is the first example's shape). sql_aggregate's repeats the COUNT shape, nearer
the question: with none its level-0 answers copied the first example's `SELECT name` (0 of 8), with a GROUP BY
MAX example they wrote MAX(age) (0 of 8), with this one 2 of 8 passed. With the three shared examples alone the
135M model passed 0 of 32 level-0 samples of these four families (probe_kind.py sql 0 4 2, seed 7): it invented a `position` column for ROW_NUMBER, compared with a constant
instead of the average, and wrote a join as a filter."""


def examples_for(family: str) -> tuple[tuple[str, str], ...]:
    """The worked examples a task of `family` sees: the shared three, then its family's one (if any)."""
    extra = FAMILY_EXAMPLES.get(family)
    return EXAMPLES + ((extra,) if extra else ())


def examples_text(family: str = "") -> str:
    shown = examples_for(family)
    schema = EXAMPLE_SCHEMA + ("\n" + JOIN_SCHEMA if any(JOIN_TABLE in sql for _, sql in shown) else "")
    blocks = "\n\n".join(f"Question: {q}\n{PREFILL}{sql}\n```" for q, sql in shown)
    return f"Examples:\n{schema}\n\n{blocks}"


def build_prompt(task: Task, variant: int = 0) -> Prompt:
    v = variant % VARIANTS
    spec = task.test_cases[0].args[0] if task.test_cases and task.test_cases[0].args else {"tables": []}
    order = ("Return the rows in exactly the order asked for." if task.params.get("ordered")
             else "Row order does not matter.")
    user = (f"{examples_text(task.family or '')}\n\n"
            f"Your database (SQLite):\n{create_statements(spec)}\n\n"
            f"Some of its rows:\n{sample_rows(spec, SAMPLE_ROWS)}\n\n"
            f"Question: {task.description.strip()}\n{order}\n"
            "Use only the tables and columns above; return exactly the columns asked for, in that order. "
            "The query runs on other databases with this schema too. "
            "Answer with one SQLite SELECT statement in a ```sql block.")
    messages = ({"role": "system", "content": _SYSTEM[v]}, {"role": "user", "content": user})
    return Prompt(messages, PREFILL, v, prompt_hash(messages, PREFILL))
