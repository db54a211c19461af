"""The store records which weights proposed what, with its reward (schema version 3), and upgrades a version-2 run
to it; the league and the proposer's examples are read back from that table."""

from __future__ import annotations

import json
import sqlite3

from spade.records import Task
from spade.selfplay.prompts import recent_examples
from spade.store import IterationTask, IterationWrite, ProposalRecord, RunState, RunStore
from spade.store.proposals import (
    copied_examples,
    final_proposals,
    league_candidates,
    proposer_examples,
    recent_programs,
    selfplay_summary,
)


def record(pid: str, iteration: int, checkpoint: str | None, task_id: str | None, reward: float) -> ProposalRecord:
    return ProposalRecord(pid, iteration, checkpoint, "m", "deduction", task_id, task_id is not None,
                          "ok" if task_id else "no_inputs", 0.0, 0.5 if task_id else None, max(reward, 0.0), reward,
                          '{"task_id": "p", "difficulty": 0.3, "examples": [], "mode": "deduction"}', f"x): {pid}")


def task(task_id: str) -> Task:
    return Task(task_id, "d", "def f(x)", "f", 0.3, reference_solution="def f(x):\n    return x\n",
                params={"mode": "deduction"}, kind="code_reasoning")


def test_proposals_are_committed_with_their_weights_and_read_back(tmp_path):
    with RunStore(tmp_path, create=True) as store:
        w = IterationWrite(0, tasks=[IterationTask(task("t0"), "generated")],
                           proposals=[record("p0", 0, "checkpoints/ckpt-0", "t0", 0.5),
                                      record("p1", 0, "checkpoints/ckpt-0", None, -0.5)],
                           state=RunState(selfplay={"boost_left": 1}))
        store.commit_iteration(w)
        store.commit_iteration(IterationWrite(1, tasks=[IterationTask(task("t1"), "generated")],
                                              proposals=[record("p2", 1, "checkpoints/ckpt-1", "t1", 0.25)]))
        assert store.state_after(0).selfplay == {"boost_left": 1}
        assert recent_programs(store, 5) == [("t1", "x): p2"), ("t0", "x): p0")]
        assert [r[2] for r in proposer_examples(store, -1, 0.0, 10)] == [0.5, 0.25]
        assert [r[2] for r in proposer_examples(store, 0, 0.0, 10)] == [0.25]  # since the last proposer update
        assert league_candidates(store, "checkpoints/ckpt-1", 10) == [("t0", "checkpoints/ckpt-0")]


def test_a_version_2_run_is_upgraded_with_the_proposals_table(tmp_path):
    RunStore(tmp_path, create=True).close()
    conn = sqlite3.connect(tmp_path / "spade.sqlite")
    conn.execute("DROP TABLE proposals")
    conn.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    with RunStore(tmp_path, read_only=True) as reader:
        assert reader.meta("schema_version") == "2"
        assert final_proposals(reader) == []  # read as it is: no proposals table, no proposals
        assert selfplay_summary(reader) is None  # `spade status` of an old run has no self-play section
    with RunStore(tmp_path) as writer:
        assert writer.meta("schema_version") == "3"
        writer.commit_iteration(IterationWrite(0, tasks=[IterationTask(task("t0"), "generated")],
                                               proposals=[record("p0", 0, None, "t0", 0.5)]))
        assert league_candidates(writer, "checkpoints/ckpt-1", 10) == [("t0", None)]


def test_learnable_programs_are_the_admitted_proposals_the_solver_solved_sometimes(tmp_path):
    with RunStore(tmp_path, create=True) as store:
        store.commit_iteration(IterationWrite(
            0, tasks=[IterationTask(task("t0"), "generated"), IterationTask(task("t1"), "generated")],
            proposals=[record("p0", 0, None, "t0", 0.5), record("p1", 0, None, "t1", 0.0),
                       record("p2", 0, None, None, -0.5)]))
        assert recent_programs(store, 5, learnable=True) == [("t0", "x): p0")]


def copy_of(pid: str, shown: str) -> ProposalRecord:
    """A valid proposal refused as a copy of the example its prompt showed."""
    return ProposalRecord(pid, 1, None, "m", "induction", None, True, "duplicate_example", 1.0, None, 0.0, -0.5,
                          json.dumps({"task_id": pid, "difficulty": 0.3, "examples": [shown], "mode": "induction"}),
                          "x): copied")


def test_an_example_copied_k_times_is_retired_and_the_next_newest_shown_instead(tmp_path):
    with RunStore(tmp_path, create=True) as store:
        store.commit_iteration(IterationWrite(
            0, tasks=[IterationTask(task(f"t{k}"), "generated") for k in range(3)],
            proposals=[record(f"p{k}", 0, None, f"t{k}", 0.5) for k in range(3)]))
        copies = [copy_of("c0", "def f(x): p2"), copy_of("c1", "def f(x): p2"), copy_of("c2", "def f(x): p1")]
        store.commit_iteration(IterationWrite(1, proposals=copies))
        assert copied_examples(store) == {"def f(x): p2": 2, "def f(x): p1": 1}
        every = ["def f(x): p2", "def f(x): p1", "def f(x): p0"]
        assert recent_examples(store) == every  # retire 0: none retired
        assert recent_examples(store, retire=3) == every
        assert recent_examples(store, retire=2) == every[1:]
        assert recent_examples(store, retire=1) == every[2:]
        assert recent_examples(store, learnable=True, retire=2) == every[1:]
