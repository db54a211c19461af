"""GRPO inside the loop: the controller's tasks feed TRL's GRPOTrainer, SPADE's sandbox rewards it, the update is
checkpointed and the eval gate judges it, and a resumed run starts from that checkpoint."""

import json
import sqlite3

import pytest

from tests.pipeline.conftest import spade

pytestmark = pytest.mark.slow

GRPO_RUN = """
evolution: {coevolve_every: 2, window: 8, patience: 1}
generation: {tasks_per_iteration: 2}
sampling: {sampling_n: 2, max_new_tokens: 40, batch_size: 8, threads: 1}
training: {update_method: grpo, batch_size: 4, grpo_generations: 2, steps_per_update: 1, lr: 0.0001}
eval: {limit: 3}
executor: {workers: 2}
"""


def test_grpo_updates_run_in_the_loop_and_resume_from_their_checkpoint(tmp_path):
    config = tmp_path / "grpo.yaml"
    config.write_text(GRPO_RUN)
    run_dir = tmp_path / "run"
    done = spade("run", "--config", str(config), "--run-dir", str(run_dir), "--iterations", "1", timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    done = spade("run", "--resume", str(run_dir), "--iterations", "2", timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    with sqlite3.connect(run_dir / "spade.sqlite") as db:
        updates = [json.loads(j) for (j,) in db.execute("SELECT json FROM updates ORDER BY iteration")]
        evals = db.execute("SELECT COUNT(*) FROM evals").fetchone()[0]
        # GRPO's own completions, graded on the loop's path, are committed and audited like the loop's
        grpo = db.execute("SELECT COUNT(*) FROM candidates c JOIN executions e USING(candidate_id)"
                          " JOIN rewards r USING(candidate_id) WHERE c.candidate_id LIKE '%:grpo:%'").fetchone()[0]
        audited = db.execute(
            "SELECT COUNT(*) FROM audit WHERE kind = 'candidate' AND ref LIKE '%:grpo:%'").fetchone()[0]
    assert len(updates) == 2
    for u in updates:
        assert u["method"] == "grpo"
        assert u["examples"] == 4  # one step: 2 prompts x 2 completions, each scored in the sandbox
        assert 0.0 <= u["pass_rate"] <= 1.0
        assert (run_dir / u["checkpoint"] / "state.json").is_file() or u.get("rollback")
    assert evals >= 3  # the baseline, then one gate check per update
    assert grpo == audited == sum(u["examples"] for u in updates)
