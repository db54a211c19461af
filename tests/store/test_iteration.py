"""The typed records an iteration commits: tasks with their origin, uses of stored tasks, and the run state, which
keeps the JSON shape runs have always stored (a resumed or older run reads back what it wrote)."""

import json

from spade.records import Task, TestCase
from spade.store import IterationTask, IterationWrite, RunState, RunStore, TaskUse

CASE = TestCase(args=(1,), expected=1)
A = Task("a", "d", "def f(x: int) -> int:", "f", 0.5, test_cases=(CASE,), reference_solution="def f(x): return x")
B = Task("b", "d", "def f(x: int) -> int:", "f", 0.5, test_cases=(CASE,), reference_solution="def f(x): return x")


def test_generated_tasks_are_stored_and_every_use_is_counted_with_its_origin(tmp_path):
    with RunStore(tmp_path, create=True) as store:
        first = IterationWrite(0, tasks=[IterationTask(A, "generated"), IterationTask(B, "generated")])
        store.commit_iteration(first)
        again = IterationWrite(1, tasks=[IterationTask(A, "replay")], task_uses=[TaskUse("b", "generated")])
        store.commit_iteration(again)
        assert again.tasks_of("replay") == [A] and again.all_tasks == [A] and first.tasks_of("generated") == [A, B]
        assert store.query("SELECT task_id FROM tasks ORDER BY rowid") == [("a",), ("b",)]
        uses = store.query("SELECT iteration, task_id, origin FROM task_uses ORDER BY rowid")
        assert uses == [(0, "a", "generated"), (0, "b", "generated"), (1, "a", "replay"), (1, "b", "generated")]


def test_the_run_state_is_stored_as_the_json_runs_always_held_and_read_back_typed(tmp_path):
    loop = RunState(controller={"steps": 3}, checkpoint="checkpoints/it-1", gate={"margin": 0.05})
    env = RunState(controller={"steps": 4}, checkpoint="checkpoints/it-1", env_reports=2)
    with RunStore(tmp_path, create=True) as store:
        store.commit_iteration(IterationWrite(0, state=loop))
        store.commit_iteration(IterationWrite(1, state=env))
        stored = [json.loads(s) for (s,) in store.query("SELECT state FROM iterations ORDER BY iteration")]
        assert stored[0] == {"controller": {"steps": 3}, "checkpoint": "checkpoints/it-1", "gate": {"margin": 0.05}}
        assert stored[1]["env"] == {"reports": 2}
        assert store.state_after(0) == loop and store.state_after(1) == env
        assert store.state_after(7) == RunState()  # no such iteration: a new run's empty state
    # A state an earlier environment run wrote (no checkpoint or gate keys) reads with their defaults.
    assert RunState.from_dict({"controller": {"steps": 1}, "env": {"reports": 5}}) == RunState({"steps": 1}, env_reports=5)
