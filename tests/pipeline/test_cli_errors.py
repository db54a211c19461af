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


def _hostile_task_files(tmp_path):
    """One file per kind of bad task input, each with the fragments its one-line error must hold."""
    base = {"task_id": "x", "description": "d", "signature": "def f(x: int) -> int:",
            "reference_solution": "def f(x):\n    return x\n", "test_cases": [{"input": [1], "expected": 1}]}
    text = json.dumps(base)
    files = {
        "bigint.json": (text.replace('"expected": 1', '"expected": ' + "9" * 5000), ["5000 digits"]),
        "deep.jsonl": (text.replace('"expected": 1', '"expected": ' + "[" * 90_000 + "]" * 90_000), [":1:", "nested"]),
        "cpu.json": (json.dumps(dict(base, params={"reference_cpu_s": "fast"})), ["params.reference_cpu_s", "'fast'"]),
        "cpu_big.json": (json.dumps(dict(base, params={"reference_cpu_s": 1e308})), ["params.reference_cpu_s"]),
        "entry.json": (json.dumps(dict(base, entry_point=["f"])), ["entry_point", "['f']"]),
        "empty.json": (json.dumps(dict(base, test_cases=[])), ["test_cases", "at least one"]),
    }
    for name, (content, fragments) in files.items():
        (tmp_path / name).write_text(content)
        yield tmp_path / name, fragments
    latin = tmp_path / "latin1.json"
    latin.write_bytes(json.dumps(dict(base, description="café"), ensure_ascii=False).encode("latin-1"))
    yield latin, ["not UTF-8", "0xe9"]


def test_every_command_that_loads_task_files_refuses_bad_ones_in_one_line(tmp_path):
    solution = tmp_path / "s.py"
    solution.write_text("def f(x):\n    return x\n")
    for path, fragments in _hostile_task_files(tmp_path):
        for args in (["exec", str(path), str(solution)], ["validate", str(path)], ["eval", "--suite", str(path),
                     "--samples", str(tmp_path / "none.jsonl")], ["variants", str(path), "--out", str(tmp_path / "o")]):
            proc = spade(*args, timeout=120)
            _assert_one_line_error(proc, str(path), *fragments)
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    "line, fragments",
    [
        ('{"task_id": "a", "completion": ' + "[" * 100_000 + "]" * 100_000 + "}", ["completion = [[[", ":1:"]),
        ('{"task_id": ' + "7" * 5000 + ', "completion": "x"}', ["(5000 digits)"]),
        ('{"task_id": "caf\xe9", "completion": "x"}', ["not UTF-8"]),
    ],
)
def test_bad_samples_files_are_one_line(tmp_path, line, fragments):
    path = tmp_path / "samples.jsonl"
    path.write_bytes(line.encode("latin-1") + b"\n")
    _assert_one_line_error(spade("eval", "--samples", str(path)), str(path), *fragments)


@pytest.mark.parametrize("content, fragment", [(b"run:\n  seed: 1 # caf\xe9\n", "not UTF-8"),
                                               (b"run: " + b"[" * 50_000 + b"]" * 50_000, "nested deeper")])
def test_a_mis_encoded_or_deep_config_is_one_line_for_every_command(tmp_path, content, fragment):
    path = tmp_path / "bad.yaml"
    path.write_bytes(content)
    _assert_one_line_error(spade("check", "--config", str(path)), str(path), fragment)
    _assert_one_line_error(spade("run", "--config", str(path), "--run-dir", str(tmp_path / "r")), fragment)
    assert not (tmp_path / "r").exists()


def test_resuming_a_run_whose_config_was_damaged_is_one_line(tmp_path):
    from spade.config import SpadeConfig
    from spade.rundir.layout import create_run

    create_run(tmp_path / "run", SpadeConfig()).close()
    (tmp_path / "run" / "config.yaml").write_bytes(b"run: {seed: \xff}\n")
    _assert_one_line_error(spade("run", "--resume", str(tmp_path / "run")), "config.yaml:1", "not UTF-8")


def test_seeds_whose_reference_cannot_be_parsed_are_refused_by_variants_in_one_line(tmp_path):
    seeds = tmp_path / "seeds.jsonl"
    seeds.write_text(json.dumps({"task_id": "deep", "description": "d", "signature": "def f(x: int) -> int:",
                                 "reference_solution": "def f(x):\n    return x" + "+0" * 200_000 + "\n",
                                 "test_cases": [{"input": [1], "expected": 1}]}) + "\n")
    _assert_one_line_error(spade("variants", str(seeds), "--out", str(tmp_path / "out.jsonl")), "task deep",
                           "reference_solution", "nested too deeply")
    assert not (tmp_path / "out.jsonl").exists()


@pytest.mark.parametrize("heartbeat", [b"\xff\xfe", b"{\"iteration\": ", b"[1, 2]", b"{}"])
def test_status_reads_a_run_whose_heartbeat_is_damaged(tmp_path, heartbeat):
    from tests.doctor.rundb import Shape, build_run

    run = build_run(tmp_path / "run", Shape(iterations=2))
    (run / "heartbeat.json").write_bytes(heartbeat)
    proc = spade("status", str(run), "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["iterations"] == 2 and json.loads(proc.stdout)["heartbeat"] is None
