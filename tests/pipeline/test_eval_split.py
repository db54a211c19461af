"""The eval gate decides on the dev split and never reads a reported split: a real run's gate history names
only dev tasks, none of which the reported evaluations graded (nor any duplicate of them)."""

import json
import sqlite3
from dataclasses import replace

import pytest

from spade.dedup import DedupIndex
from spade.evaluate.suites import load_suite
from spade.pipeline.build import gate_split
from spade.train.gate import tasks_digest
from tests.pipeline.conftest import spade

SPLIT_RUN = """
evolution: {coevolve_every: 2, window: 8, patience: 1}
generation: {tasks_per_iteration: 3}
sampling: {sampling_n: 2, max_new_tokens: 40, batch_size: 8}
training: {batch_size: 2, steps_per_update: 1, epochs: 0, max_examples: 4, max_seq_len: 256}
eval: {limit: 3, gate_limit: 4}
executor: {workers: 2}
"""


def test_the_gates_split_drops_every_task_that_duplicates_a_reported_one() -> None:
    reported = load_suite("builtin")[:10]
    renamed = [replace(t, task_id=f"copy-{t.task_id}") for t in reported[:3]]
    dev = gate_split(reported, [*renamed, *reported[3:6], *load_suite("builtin")[10:14]], 0, 0.85)
    assert [t.task_id for t in dev] == [t.task_id for t in load_suite("builtin")[10:14]]
    assert not any(DedupIndex.from_tasks(reported).check(t).duplicate for t in dev)


@pytest.mark.slow
def test_a_runs_gate_reads_only_the_dev_split(tmp_path):
    config = tmp_path / "split.yaml"
    config.write_text(SPLIT_RUN)
    run_dir = tmp_path / "run"
    # One iteration: the gate sees the base checkpoint and the first update, the reported split is evaluated twice.
    done = spade("run", "--config", str(config), "--run-dir", str(run_dir), "--iterations", "1", timeout=3000)
    assert done.returncode == 0, done.stderr[-3000:]
    with sqlite3.connect(run_dir / "spade.sqlite") as db:
        evals = [(s, json.loads(j)) for s, j in db.execute("SELECT suite, json FROM evals ORDER BY iteration")]
        (state,) = db.execute("SELECT state FROM iterations ORDER BY iteration DESC LIMIT 1").fetchone()
    history = json.loads(state)["gate"]["history"]
    reported = {r["task_id"] for s, e in evals if s.startswith("builtin") for r in e["per_task"]}
    dev_evals = [[r["task_id"] for r in e["per_task"]] for s, e in evals if s.startswith("heldout-dev")]
    assert len(history) == len(dev_evals) >= 1  # the start, then each checkpointed update
    # Each gate observation was graded on exactly its dev evaluation's tasks, and none of those was reported.
    assert sorted(h["tasks"] for h in history) == sorted(tasks_digest(ids) for ids in dev_evals)
    gated = {t for ids in dev_evals for t in ids}
    assert reported and gated and not gated & reported
    index = DedupIndex.from_tasks(load_suite("builtin"))
    assert not any(index.check(t).duplicate for t in load_suite("heldout-dev") if t.task_id in gated)
