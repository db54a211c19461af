"""User mistakes reach the terminal as one line, never a traceback."""

import json

import pytest

from tests.pipeline.conftest import spade


def _assert_one_line_error(proc, *fragments):
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    for f in fragments:
        assert f in lines[0]


@pytest.mark.parametrize(
    "text, fragments",
    [
        ("executor:\n  timeout: 0\n", ["executor.timeout", "0", "> 0"]),
        ("sampling:\n  temprature: 0.7\n", ["unknown key", "sampling.temprature"]),
        ("evolution:\n  difficulty_high: high\n", ["evolution.difficulty_high", "high"]),
    ],
)
def test_bad_config_is_one_line_without_traceback(tmp_path, text, fragments):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    _assert_one_line_error(spade("run", "--config", str(path), "--run-dir", str(tmp_path / "r")), *fragments)


def test_bad_task_file_is_one_line_without_traceback(tmp_path):
    task = tmp_path / "task.json"
    task.write_text(json.dumps({"task_id": "x", "description": "d", "signature": "def f(x: int) -> int:",
                                "test_cases": [{"input": 5, "expected": 5}]}))
    solution = tmp_path / "s.py"
    solution.write_text("def f(x):\n    return x\n")
    _assert_one_line_error(spade("exec", str(task), str(solution)), "test_cases[0].input")


def test_status_of_a_directory_without_a_run_is_one_line(tmp_path):
    _assert_one_line_error(spade("status", str(tmp_path)), "not a SPADE run directory")


def test_resume_with_a_new_config_is_refused(tmp_path, small_config):
    _assert_one_line_error(spade("run", "--resume", str(tmp_path), "--config", str(small_config)), "--resume")
