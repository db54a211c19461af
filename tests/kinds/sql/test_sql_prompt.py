"""The SQL prompt: worked examples that are right and are about no task's table, then the task's own schema,
rows and question, with the ```sql block opened by the prefill."""

from __future__ import annotations

import re
import sqlite3

from spade.generate.procedural import draft_task
from spade.kinds.sql.dbgen import DOMAINS
from spade.kinds.sql.extract import extract_sql
from spade.kinds.sql.prompt import EXAMPLE_SCHEMA, EXAMPLE_TABLE, EXAMPLES, build_prompt
from spade.kinds.sql.spec import create_statements
from spade.records import Task, TestCase

PETS = [(1, "Tom", "cat", 4), (2, "Rex", "dog", 2), (3, "Kit", "cat", 1), (4, "Bo", "dog", 9)]


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
    assert EXAMPLE_TABLE not in task_tables


def test_the_prompt_shows_the_examples_then_the_tasks_schema_and_question_and_opens_a_sql_block():
    for family, difficulty in (("sql_filter", 0.0), ("sql_join", 0.25), ("sql_window", 1.0)):
        task = as_task(family, difficulty)
        prompt = build_prompt(task, 0)
        user = prompt.messages[-1]["content"]
        schema = create_statements(task.test_cases[0].args[0])
        assert user.index(EXAMPLES[-1][1]) < user.index(schema) < user.index(task.description)
        assert user.count("```sql\n") == len(EXAMPLES) and prompt.prefill == "```sql\n"
        assert extract_sql(task.reference_solution + "\n```") == task.reference_solution
