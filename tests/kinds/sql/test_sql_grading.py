"""SQL answers through the one grading path (spade.rollout.Grader) and the evaluator: result sets compared on the
host with types and NULLs exact, order only when asked; no SQL is a format failure."""

from __future__ import annotations

import json

import pytest

from spade.config import RewardConfig
from spade.evaluate.evaluator import grade_samples
from spade.kinds import kind_of
from spade.kinds.sql.compare import same_result
from spade.kinds.sql.extract import extract_sql
from spade.records import Completion, ExecStatus, Task, TestCase, TestStatus
from spade.rollout import Grader

DB = {"tables": [{"name": "t", "columns": [["id", "INTEGER"], ["x", "REAL"], ["s", "TEXT"]],
                  "rows": [[1, 1.5, "a"], [2, None, "b"], [3, 3.0, None]]}]}


def res(*rows, width=1):
    return {"columns": [f"c{i}" for i in range(width)], "rows": [list(r) for r in rows]}


def grade(pool, task, *answers):
    completions = [Completion(f"{a}\n```") for a in answers]  # each continues after the prefilled ```sql fence
    ids = [str(i) for i in range(len(answers))]
    return Grader(pool, RewardConfig()).grade([task] * len(answers), completions, ids=ids)


def test_the_reference_passes_a_dropped_filter_fails_and_prose_is_a_format_failure(pool, filter_task):
    wrong = filter_task.reference_solution.split(" WHERE ")[0]
    right, dropped, prose = grade(pool, filter_task, filter_task.reference_solution, wrong, "")
    assert right.passed and right.result.status is ExecStatus.PASSED and right.reward.total > 1.0
    assert not dropped.passed and dropped.result.status is ExecStatus.FAILED
    assert any(t.status is TestStatus.WRONG_ANSWER and t.got for t in dropped.result.tests)
    assert prose.candidate.code == "" and prose.result.status is ExecStatus.NO_ENTRY_POINT
    assert prose.reward.format_penalty == RewardConfig().format_penalty


def test_a_statement_that_is_not_a_query_is_a_format_failure(pool, filter_task):
    (rollout,) = grade(pool, filter_task, "EXPLAIN SELECT 1")
    assert rollout.result.status is ExecStatus.SYNTAX_ERROR and rollout.reward.format_penalty > 0


def test_order_counts_only_when_the_question_asks_for_it(pool, filter_task, ordered_task):
    shuffled = f"SELECT * FROM ({filter_task.reference_solution}) ORDER BY random()"
    assert grade(pool, filter_task, shuffled)[0].passed
    reversed_order = f"SELECT * FROM ({ordered_task.reference_solution}) ORDER BY 1 DESC"
    assert ordered_task.params["ordered"] is True
    assert not grade(pool, ordered_task, reversed_order)[0].passed
    assert grade(pool, ordered_task, f"SELECT * FROM ({ordered_task.reference_solution})")[0].passed


def test_hard_coding_the_public_results_fails_the_hidden_databases(pool, filter_task):
    rows = [r for c in filter_task.test_cases[:1] for r in c.expected["rows"]]
    values = " UNION ALL ".join(f"SELECT '{cells[0][1]}'" for cells in rows)
    (rollout,) = grade(pool, filter_task, values)
    assert rollout.result.hidden_score < 1.0 and not rollout.passed


def test_types_and_nulls_are_exact_and_reals_round_to_ten_digits():
    assert same_result(res([["int", 3]]), res([["int", 3]]), True)
    assert not same_result(res([["int", 3]]), res([["real", 3.0]]), True)
    assert not same_result(res([["int", 3]]), res([["text", "3"]]), True)
    assert not same_result(res([["null", None]]), res([["int", 0]]), True)
    assert not same_result(res([["null", None]]), res([["text", ""]]), True)
    assert same_result(res([["real", 0.1 + 0.2]]), res([["real", 0.3]]), True)
    assert not same_result(res([["real", 0.3001]]), res([["real", 0.3]]), True)
    assert same_result(res([["int", 1]], [["int", 2]]), res([["int", 2]], [["int", 1]]), False)
    assert not same_result(res([["int", 1]], [["int", 2]]), res([["int", 2]], [["int", 1]]), True)
    assert not same_result(res([["int", 1]], [["int", 1]]), res([["int", 1]]), False)  # duplicates count
    assert not same_result(res(width=2), res(width=1), False)  # column count matters, even with no rows


def test_types_are_exact_through_the_sandbox(pool):
    task = Task("sql/types", "Return x and s of every row.", "SQLite SELECT statement", "query", 0.1,
                test_cases=(TestCase((DB,), {"columns": ["x", "s"], "rows": [[["real", 1.5], ["text", "a"]],
                                                                             [["null", None], ["text", "b"]],
                                                                             [["real", 3.0], ["null", None]]]}),),
                reference_solution="SELECT x, s FROM t", kind="sql")
    ok, ints, blanks = grade(pool, task, "SELECT x, s FROM t", "SELECT CAST(x AS INTEGER), s FROM t",
                             "SELECT x, coalesce(s, '') FROM t")
    assert ok.passed and not ints.passed and not blanks.passed


def test_the_evaluator_grades_sql_samples(pool, filter_task, tmp_path):
    samples = tmp_path / "samples.jsonl"
    reference = filter_task.reference_solution
    lines = [reference + "\n```", "I cannot answer.", f"{reference} AND 0\n```"]
    samples.write_text("".join(json.dumps({"task_id": filter_task.task_id, "completion": c}) + "\n" for c in lines))
    report = grade_samples(pool, [filter_task], samples, ks=(1,), suite="sql")
    assert report.to_dict()["pass_at_k"]["1"] == pytest.approx(1 / 3)


def test_the_prompt_shows_the_schema_sample_rows_and_question_but_no_hidden_database(filter_task):
    prompt = kind_of(filter_task).prompt(filter_task, 0)
    text = prompt.messages[-1]["content"]
    table = filter_task.test_cases[0].args[0]["tables"][0]
    assert f"CREATE TABLE {table['name']} (id INTEGER" in text and filter_task.description in text
    assert prompt.prefill == "```sql\n" and "```sql" in text
    hidden_names = {r[1] for c in filter_task.hidden_test_cases for r in c.args[0]["tables"][0]["rows"]}
    shown_names = {r[1] for r in table["rows"]}
    assert not any(f"'{n}'" in text for n in hidden_names - shown_names)
    assert kind_of(filter_task).prompt(filter_task, 1).hash != prompt.hash


@pytest.mark.parametrize("completion, prefilled, want", [
    ("SELECT a FROM t;\n```\nThis selects a.", True, "SELECT a FROM t;"),
    ("Here:\n```sql\nSELECT 1\n```", False, "SELECT 1"),
    ("```\nprint(1)\n```\n```\nWITH x AS (SELECT 1) SELECT * FROM x\n```", False,
     "WITH x AS (SELECT 1) SELECT * FROM x"),
    ("The answer is SELECT name FROM t WHERE x > 2; done", False, "SELECT name FROM t WHERE x > 2;"),
    ("I do not know.", False, ""),
    ("```\n```", True, ""),
])
def test_extraction_takes_the_sql_block_or_the_first_select(completion, prefilled, want):
    assert extract_sql(completion, prefilled=prefilled) == want


def test_the_screen_flags_escapes_and_writes_but_not_names_or_literals(filter_task):
    screen = kind_of(filter_task).screen
    assert screen("ATTACH '/etc/passwd' AS p") == ("sql_escape",)
    assert screen("SELECT load_extension('x')") == ("sql_escape",)
    assert screen("DELETE FROM t") == ("sql_write",)
    assert screen("SELECT created_at, 'drop table x; attach' FROM updates") == ()


def test_exported_ground_truth_keeps_the_kind_so_outside_trainers_grade_sql_answers(filter_task):
    from spade.export.reward_fn import compute_score
    from spade.groundtruth import ground_truth, task_from_ground_truth, verl_code_truth

    truth = ground_truth(filter_task, verl_code=True)
    rebuilt = task_from_ground_truth(truth)
    assert rebuilt.kind == "sql" and rebuilt.params == filter_task.params
    assert rebuilt.all_tests == filter_task.all_tests and verl_code_truth(filter_task) is None
    right = compute_score("spade", f"```sql\n{filter_task.reference_solution}\n```", truth)
    wrong = compute_score("spade", "```sql\nSELECT 1\n```", truth)
    assert right["acc"] == 1.0 and wrong["acc"] == 0.0
