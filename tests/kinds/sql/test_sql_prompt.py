"""The SQL prompt: worked examples that are right and are about no task's table, then the task's own schema,
rows and question, with the ```sql block opened by the prefill."""

from __future__ import annotations

import re
import sqlite3

import pytest

from spade.generate.procedural import draft_task
from spade.kinds.sql.dbgen import DOMAINS
from spade.kinds.sql.extract import extract_sql
from spade.kinds.sql.prompt import (
    EXAMPLE_SCHEMA,
    EXAMPLE_TABLE,
    EXAMPLES,
    FAMILY_EXAMPLES,
    JOIN_SCHEMA,
    JOIN_TABLE,
    build_prompt,
    examples_for,
)
from spade.kinds.sql.spec import create_statements
from spade.records import Task, TestCase

PETS = [(1, "Tom", "cat", 4), (2, "Rex", "dog", 2), (3, "Kit", "cat", 1), (4, "Bo", "dog", 9)]
VISITS = [(1, 2, "2024-01-05"), (2, 4, "2024-02-11"), (3, 2, "2024-03-02")]
FAMILIES = ("sql_aggregate", "sql_filter", "sql_join", "sql_subquery", "sql_window")


def pets_db() -> sqlite3.Connection:
    con = sqlite3.connect(":memory:")
    con.executescript(EXAMPLE_SCHEMA + JOIN_SCHEMA)
    con.executemany(f"INSERT INTO {EXAMPLE_TABLE} VALUES (?, ?, ?, ?)", PETS)
    con.executemany(f"INSERT INTO {JOIN_TABLE} VALUES (?, ?, ?)", VISITS)
    return con


def task_db(spec: dict) -> sqlite3.Connection:
    con = sqlite3.connect(":memory:")
    con.executescript(create_statements(spec))
    for table in spec["tables"]:
        marks = ", ".join("?" for _ in table["columns"])
        con.executemany(f"INSERT INTO {table['name']} VALUES ({marks})", table["rows"])
    return con


def as_task(family: str, difficulty: float) -> Task:
    d = draft_task(family, difficulty, 5, 0, 3, 5)
    return Task(d.task_id, d.description, d.signature, d.entry_point, d.difficulty, d.tags,
                test_cases=tuple(TestCase(a, None) for a in d.public_inputs), reference_solution=d.reference_solution,
                family=d.family, params=dict(d.params), kind=d.kind)


def test_each_example_query_returns_the_columns_its_question_names():
    con = sqlite3.connect(":memory:")
    con.execute(EXAMPLE_SCHEMA)
    con.executemany(f"INSERT INTO {EXAMPLE_TABLE} VALUES (?, ?, ?, ?)", PETS)
    answers = []
    for question, query in EXAMPLES:
        cursor = con.execute(query)
        rows = cursor.fetchall()
        named = [c for c in re.findall(r"`(\w+)`", question) if c != EXAMPLE_TABLE]
        returned = [c[0] for c in cursor.description]
        assert returned == (["COUNT(*)"] if "number of rows" in question else named[:len(returned)])
        answers.append(rows)
    assert answers == [[("Tom",), ("Kit",)], [("cat", 4), ("dog", 9)], [(2,)]]


def test_the_examples_table_is_no_tasks_table_so_copying_an_example_cannot_pass():
    task_tables = {name for d in DOMAINS.values() for name in (d.m, d.p, d.c)}
    assert not {EXAMPLE_TABLE, JOIN_TABLE} & task_tables


def test_each_familys_own_example_answers_its_question_on_the_example_tables():
    con = pets_db()
    got = {family: con.execute(query).fetchall() for family, (_, query) in FAMILY_EXAMPLES.items()}
    assert got == {"sql_aggregate": [(2,)],
                   "sql_join": [("2024-01-05", "Rex"), ("2024-02-11", "Bo"), ("2024-03-02", "Rex")],
                   "sql_subquery": [("Bo",)],  # the average age is 4: Tom (4) is not above it
                   "sql_window": [("Bo", 1), ("Tom", 2), ("Rex", 3), ("Kit", 4)]}
    assert set(FAMILY_EXAMPLES) == set(FAMILIES) - {"sql_filter"}


def test_no_example_query_runs_on_any_first_step_tasks_database():
    for family in FAMILIES:
        for difficulty in (0.0, 0.25):
            con = task_db(draft_task(family, difficulty, 7, 0, 3, 5).all_inputs[0][0])
            for _, query in examples_for(family):
                with pytest.raises(sqlite3.OperationalError, match="no such table"):
                    con.execute(query)


def test_a_task_sees_the_shared_examples_then_its_familys_own_and_the_join_table_only_when_shown():
    for family in FAMILIES:
        user = build_prompt(as_task(family, 0.0), 0).messages[-1]["content"]
        shown = examples_for(family)
        assert user.count("Question: ") == len(shown) + 1 and all(sql in user for _, sql in shown)
        assert len(shown) == len(EXAMPLES) + (family != "sql_filter")
        assert (JOIN_SCHEMA in user) == (family == "sql_join")


def test_the_prompt_shows_the_examples_then_the_tasks_schema_and_question_and_opens_a_sql_block():
    for family, difficulty in (("sql_filter", 0.0), ("sql_join", 0.25), ("sql_window", 1.0)):
        task = as_task(family, difficulty)
        prompt = build_prompt(task, 0)
        user = prompt.messages[-1]["content"]
        schema = create_statements(task.test_cases[0].args[0])
        assert user.index(examples_for(family)[-1][1]) < user.index(schema) < user.index(task.description)
        assert user.count("```sql\n") == len(examples_for(family)) and prompt.prefill == "```sql\n"
        assert extract_sql(task.reference_solution + "\n```") == task.reference_solution
