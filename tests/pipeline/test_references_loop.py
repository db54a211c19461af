"""training.references in the loop: the references of the tasks no sample solved reach the RFT update (the real
embedded model, sandbox and store), so even an iteration without one passing sample trains."""

import json
import sqlite3

import pytest

from tests.pipeline.conftest import SMALL_RUN, spade

pytestmark = pytest.mark.slow


def test_references_of_unsolved_tasks_are_trained_on(tmp_path):
    config = tmp_path / "refs.yaml"
    # 8 new tokens: no function can pass, so every task is unsolved and only references can fill the buffer (Python
    # functions alone: an 8-token prediction may answer a code-reasoning task; no proposal fits in 8 tokens).
    config.write_text(SMALL_RUN.replace("max_new_tokens: 48", "max_new_tokens: 8")
                      .replace("tasks_per_iteration: 3}", "tasks_per_iteration: 3, kinds: {python_function: 1.0}}\n"
                               "selfplay: {enabled: false}")
                      .replace("max_examples: 4", "max_examples: 8, references: true")
                      .replace("eval: {limit: 4}", "eval: {every: 0}"))
    run_dir = tmp_path / "run"
    done = spade("run", "--config", str(config), "--run-dir", str(run_dir), "--iterations", "1", timeout=1200)
    assert done.returncode == 0, done.stderr[-3000:]
    with sqlite3.connect(run_dir / "spade.sqlite") as db:
        metrics = dict(db.execute("SELECT name, value FROM metrics"))
        passed = db.execute("SELECT COUNT(*) FROM executions WHERE status = 'passed'").fetchone()[0]
        tasks = db.execute("SELECT COUNT(*) FROM tasks").fetchone()[0]
        update = json.loads(db.execute("SELECT json FROM updates").fetchone()[0])
    assert passed == 0 and tasks >= 1
    assert metrics["reference_samples"] == tasks
    assert update["rationalized"] == tasks and update["examples"] == tasks and update["steps"] >= 1
