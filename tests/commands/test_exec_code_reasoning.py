"""`spade exec` on a code-reasoning task file, seen from outside (a real subprocess, a real sandbox): an abduction
answer nested past the sandbox codec's depth fails with a verdict (exit 1), never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

from tests.pipeline.conftest import spade

COUNT = "def f(x):\n    return str(x).count('[')\n"
ABDUCTION = {"task_id": "count", "description": "Count brackets.", "signature": "def f(x)", "entry_point": "f",
             "difficulty": 0.3, "kind": "code_reasoning", "params": {"mode": "abduction"},
             "reference_solution": COUNT, "test_cases": [{"input": [[[3]]], "expected": 2}]}


def test_an_abduction_answer_past_the_codecs_depth_fails_without_a_traceback(tmp_path: Path) -> None:
    task = tmp_path / "task.json"
    task.write_text(json.dumps(ABDUCTION))
    answer = tmp_path / "answer.txt"
    answer.write_text("assert f(" + "[" * 65 + "3" + "]" * 65 + ") == 3")  # the repro: 146 bytes
    proc = spade("exec", str(task), str(answer))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr + proc.stdout, proc.stderr[-2000:]
    answer.write_text("assert f([[1]]) == 2\n")
    assert spade("exec", str(task), str(answer)).returncode == 0
