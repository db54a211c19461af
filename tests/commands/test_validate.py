import io
import json

from rich.console import Console

from spade.commands.validate import validate_command
from spade.config import SpadeConfig

REF = "def add(a: int, b: int) -> int:\n    return a + b\n"


def task(task_id, cases, reference=REF):
    d = {"task_id": task_id, "description": "Add a and b.", "signature": "def add(a: int, b: int) -> int:",
         "difficulty": 0.1, "tags": ["math"], "test_cases": [{"input": i, "expected": e} for i, e in cases]}
    if reference:
        d["reference_solution"] = reference
    return d


def run(tmp_path, tasks):
    path = tmp_path / "tasks.jsonl"
    path.write_text("\n".join(json.dumps(t) for t in tasks) + "\n")
    out = io.StringIO()
    cfg = SpadeConfig.model_validate({"generation": {"max_mutants": 0}})
    code = validate_command(str(path), cfg, Console(file=out, width=300))
    return code, out.getvalue()


def test_validate_reports_each_task_and_fails_when_any_is_rejected(tmp_path):
    code, text = run(tmp_path, [
        task("good", [([1, 2], 3), ([0, 0], 0)]),
        task("wrong", [([1, 2], 4), ([2, 2], 4)]),
        task("bare", [([1, 2], 3)], reference=None),
        task("arity", [([1], 3)]),
    ])
    assert code == 1
    assert "expected_mismatch" in text and "1 of 2" in text
    assert "arity_mismatch" in text
    assert "static_only" in text
    assert "2 accepted, 2 rejected of 4 tasks" in text


def test_validate_returns_zero_when_every_task_is_accepted(tmp_path):
    code, text = run(tmp_path, [task("good", [([1, 2], 3)]), task("bare", [([5, 5], 10)], reference=None)])
    assert code == 0, text
    assert "2 accepted, 0 rejected" in text
