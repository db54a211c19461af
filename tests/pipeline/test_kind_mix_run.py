"""`spade run --set generation.kinds.program=1` runs the whole loop with the embedded model on a mix of Python
function and program tasks (self-play off: the kinds' procedural supply alone), and `spade status` shows both
kinds."""

import sqlite3

import pytest

from spade.store.db import DB_NAME
from tests.pipeline.conftest import spade

MIX_RUN = """
evolution: {coevolve_every: 2, window: 8, patience: 1}
generation: {tasks_per_iteration: 4, kinds: {python_function: 1.0}}
selfplay: {enabled: false}
sampling: {sampling_n: 2, max_new_tokens: 64, batch_size: 8}
training: {batch_size: 2, steps_per_update: 1, epochs: 0, max_examples: 4, max_seq_len: 320}
eval: {limit: 2}
executor: {workers: 2}
"""


@pytest.mark.slow
def test_a_run_draws_and_grades_a_mix_of_kinds(tmp_path):
    config = tmp_path / "mix.yaml"
    config.write_text(MIX_RUN)
    run_dir = tmp_path / "run"
    done = spade("run", "--config", str(config), "--set", "generation.kinds.program=1", "--run-dir", str(run_dir),
                 "--iterations", "1", timeout=3000)
    assert done.returncode == 0, done.stderr[-2000:]
    with sqlite3.connect(run_dir / DB_NAME) as db:
        kinds = dict(db.execute("SELECT COALESCE(json_extract(t.json, '$.kind'), 'python_function'), COUNT(*)"
                                " FROM tasks t JOIN candidates c USING(task_id) GROUP BY 1").fetchall())
    assert set(kinds) == {"python_function", "program"}, kinds
    status = spade("status", str(run_dir))
    assert status.returncode == 0 and "per kind and family" in status.stdout and "program_" in status.stdout
