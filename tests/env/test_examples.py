"""The README's environment example runs as written (examples/env_quickstart.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from spade.store import RunStore

ROOT = Path(__file__).resolve().parents[2]


def test_the_environment_quickstart_runs_and_moves_the_controller(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "examples/env_quickstart.py", str(tmp_path / "run")], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "iteration 2: pass rate" in proc.stdout
    with RunStore(tmp_path / "run", read_only=True) as store:
        assert store.last_iteration() == 2
        assert store.query("SELECT COUNT(*) FROM decisions")[0][0] > 0


@pytest.mark.slow
def test_the_trl_grpo_example_trains_a_step_with_the_embedded_model_and_grades_it(tmp_path: Path) -> None:
    """examples/trl_grpo.py: TRL's own GRPOTrainer, the embedded model, one step graded in the sandbox."""
    pytest.importorskip("trl")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "examples/trl_grpo.py", "--steps", "1", "--run-dir", str(tmp_path / "run")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "step   1: mean reward" in proc.stdout
    with RunStore(tmp_path / "run", read_only=True) as store:
        assert store.query("SELECT COUNT(*) FROM rewards")[0][0] == 8  # 2 prompts x 4 generations, all graded
