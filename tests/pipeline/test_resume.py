"""A run killed with SIGKILL mid-iteration resumes exactly: nothing lost, nothing counted twice."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.pipeline.conftest import ROOT, spade

pytestmark = pytest.mark.slow

ITERATIONS = 3


def _rows(db: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(sql).fetchall()


def _kill_mid_iteration(run_dir: Path, config: Path, iteration: int, stage: str) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "spade", "run", "--config", str(config), "--run-dir", str(run_dir),
         "--iterations", str(ITERATIONS)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
    )
    heartbeat = run_dir / "heartbeat.json"
    deadline = time.monotonic() + 1800  # generous: CI machines are shared and slow
    try:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                pytest.fail(f"run ended before it could be killed: {proc.stderr.read().decode()[-2000:]}")
            if heartbeat.is_file():
                try:
                    hb = json.loads(heartbeat.read_text())
                except json.JSONDecodeError:
                    hb = {}
                if hb.get("iteration") == iteration and hb.get("stage") == stage:
                    break
            time.sleep(0.05)
        else:
            pytest.fail("the run never reached the stage to kill it at")
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def test_sigkill_mid_iteration_then_resume_matches_an_uninterrupted_run(tmp_path, small_config):
    straight, killed = tmp_path / "straight", tmp_path / "killed"
    done = spade("run", "--config", str(small_config), "--run-dir", str(straight), "--iterations", str(ITERATIONS))
    assert done.returncode == 0, done.stderr[-3000:]
    assert (straight / "metrics.jsonl").read_text().count("\n") == ITERATIONS
    status = spade("status", str(straight), "--json")
    assert status.returncode == 0 and json.loads(status.stdout)["iterations"] == ITERATIONS

    # Killed while iteration 1 samples: that stage always lasts long enough to be seen. ("update" is passed in a
    # moment when the iteration drew no passing rollout, as it does with the static sampler on this config.)
    _kill_mid_iteration(killed, small_config, iteration=1, stage="sample")
    db = killed / "spade.sqlite"
    assert _rows(db, "SELECT iteration FROM iterations") == [(0,)]  # iteration 1 was never committed
    assert _rows(db, "SELECT COUNT(*) FROM candidates WHERE iteration = 1") == [(0,)]

    resumed = spade("run", "--resume", str(killed), "--iterations", str(ITERATIONS))
    assert resumed.returncode == 0, resumed.stderr[-3000:]

    a, b = straight / "spade.sqlite", db
    assert _rows(b, "SELECT iteration FROM iterations ORDER BY 1") == [(i,) for i in range(ITERATIONS)]
    for sql in (
        "SELECT task_id, iteration FROM tasks ORDER BY 1",
        "SELECT iteration, task_id, origin FROM task_uses ORDER BY 1, 2",
        "SELECT iteration, draft_id, reason FROM rejections ORDER BY 1, 2",
        "SELECT candidate_id, iteration, task_id FROM candidates ORDER BY 1",
        "SELECT iteration, family, old_difficulty, new_difficulty FROM decisions ORDER BY 1, 2",
    ):
        assert _rows(a, sql) == _rows(b, sql), sql
    # No duplicate rows: the interrupted iteration was redone once.
    assert _rows(b, "SELECT COUNT(*), COUNT(DISTINCT candidate_id) FROM candidates")[0] == \
        _rows(a, "SELECT COUNT(*), COUNT(DISTINCT candidate_id) FROM candidates")[0]
    assert _rows(b, "SELECT COUNT(*) FROM updates") == _rows(a, "SELECT COUNT(*) FROM updates")
    # Same weights and seeds: the redone iteration sampled the same completions.
    sql = "SELECT candidate_id, completion FROM candidates WHERE iteration = 2 ORDER BY 1"
    assert _rows(a, sql) == _rows(b, sql)
