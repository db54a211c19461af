"""SQL tasks in task files: they round-trip through SPADE's task schema, and `spade validate` runs their
reference in the sandbox, accepting a sound file and rejecting a broken one with reasons, never a traceback."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

from rich.console import Console

from spade.commands.validate import validate_command
from spade.config import SpadeConfig
from spade.taskio import load_tasks, task_from_dict, task_to_dict

DB1 = {"tables": [{"name": "pets", "columns": [["id", "INTEGER"], ["name", "TEXT"], ["age", "INTEGER"],
                                                ["weight", "REAL"]],
                   "rows": [[1, "Rex", 3, 12.5], [2, "Tom", 7, 4.0], [3, "Kit", 1, None], [4, "Bo", 7, 30.25]]}]}
DB2 = {"tables": [{"name": "pets", "columns": DB1["tables"][0]["columns"],
                   "rows": [[1, "Ann", 9, 8.0], [2, "Max", 2, 5.5], [3, "Zed", 4, None]]}]}
QUERY = "SELECT name, weight FROM pets WHERE age > 2 ORDER BY name"


def result(*rows):
    return {"columns": ["name", "weight"], "rows": [list(r) for r in rows]}


def sql_task(task_id="pets_over_2", expected1=None, reference=QUERY, db1=DB1):
    return {
        "task_id": task_id, "kind": "sql", "description": "Names and weights of pets older than 2, by name.",
        "signature": "SQLite SELECT statement", "entry_point": "query", "difficulty": 0.2, "tags": ["sql"],
        "params": {"ordered": True}, "reference_solution": reference,
        "test_cases": [{"input": [db1], "expected": expected1 or result(
            [["text", "Bo"], ["real", 30.25]], [["text", "Rex"], ["real", 12.5]], [["text", "Tom"], ["real", 4.0]])}],
        "hidden_test_cases": [{"input": [DB2], "expected": result(
            [["text", "Ann"], ["real", 8.0]], [["text", "Zed"], ["null", None]])}],
    }


def validate(tmp_path, tasks):
    path = tmp_path / "sql.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in tasks))
    out = io.StringIO()
    code = validate_command(str(path), SpadeConfig(), Console(file=out, width=400))
    return code, out.getvalue()


def test_a_sql_task_round_trips_through_the_task_schema(filter_task):
    again = task_from_dict(json.loads(json.dumps(task_to_dict(filter_task))))
    assert again == filter_task and again.kind == "sql" and again.params["ordered"] is False
    real = task_from_dict(sql_task())
    assert real.test_cases[0].expected["rows"][2][1] == ["real", 4.0]
    assert type(task_from_dict(json.loads(json.dumps(task_to_dict(real)))).test_cases[0].args[0]["tables"][0]
                ["rows"][1][3]) is float  # 4.0 stays a REAL through JSON


def test_spade_validate_accepts_a_sound_sql_file(tmp_path):
    bare = sql_task("no_reference")
    del bare["reference_solution"]
    code, text = validate(tmp_path, [sql_task(), bare])
    assert code == 0, text
    assert "2 accepted, 0 rejected of 2 tasks (1 checked statically only" in text


def test_spade_validate_rejects_broken_sql_tasks_with_reasons(tmp_path):
    wrong_type = result([["text", "Bo"], ["int", 30]], [["text", "Rex"], ["real", 12.5]],
                        [["text", "Tom"], ["real", 4.0]])
    bad_db = {"tables": [{"name": "pets", "columns": [["id", "INTEGER"]], "rows": [["one"]]}]}
    code, text = validate(tmp_path, [
        sql_task("types_differ", expected1=wrong_type),
        sql_task("bad_database", db1=bad_db),
        sql_task("raises", reference="SELECT name, weight FROM cats"),
        sql_task("escapes", reference="ATTACH '/etc/passwd' AS p"),
        sql_task("no_filter_test", reference="SELECT name, weight FROM pets WHERE age > 0 ORDER BY name"),
    ])
    assert code == 1
    assert "0 accepted, 5 rejected of 5 tasks" in text
    for reason in ("expected_mismatch", "bad_database", "reference_raises", "reference_refused"):
        assert reason in text


def test_the_cli_refuses_a_broken_sql_file_in_one_line(tmp_path):
    broken = sql_task()
    broken["kind"] = "sqll"
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(broken))
    done = subprocess.run([sys.executable, "-m", "spade", "validate", str(path)], check=False, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr + done.stdout
    assert "field 'kind' = 'sqll' is not a task kind" in done.stderr + done.stdout and "sql" in done.stderr


def test_load_tasks_reads_a_sql_file(tmp_path):
    path = tmp_path / "one.json"
    path.write_text(json.dumps(sql_task()))
    (task,) = load_tasks(path)
    assert task.kind == "sql" and task.entry_point == "query"


def test_the_readme_example_validates(tmp_path):
    readme = (Path(__file__).parents[3] / "docs" / "kinds.md").read_text()
    block = readme.split("### sql", 1)[1].split("```json\n", 1)[1].split("```", 1)[0]
    code, text = validate(tmp_path, [json.loads(block)])
    assert code == 0, text
