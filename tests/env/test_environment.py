"""The environment API: draws at the controller's difficulty, reports that move it, records as `spade run` writes
them, safe under threads and processes, resumable after a SIGKILL. Real sandbox, real SQLite, real families."""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from spade.config import SpadeConfig, load_config
from spade.env import Environment
from spade.errors import ConfigError
from spade.export import export_run
from spade.pipeline.status import summarise
from spade.store import RunStore

FAMILY = "list_transform"


def _config(**overrides: object) -> SpadeConfig:
    base = {"evolution.coevolve_every": 1, "evolution.window": 4, "evolution.patience": 1,
            "evolution.replay_ratio": 0.0, "generation.families": [FAMILY], "generation.tasks_per_iteration": 2,
            "executor.workers": 2, "generation.compose_share": 0.0,  # plain draws: a composed one claims more
            # an in-distribution eval suite: nothing is reserved, so no draw is refilled after a task is screened
            # out as answering a built-in task (tests/dedup/test_behaviour.py tests the screen)
            "eval.suite": "heldout"}
    return load_config(None, {**base, **overrides})


def _solve(env: Environment, task_ids: list[str]) -> list[str]:
    return [f"```python\n{env.task(t).reference_solution}\n```" for t in task_ids]


@pytest.fixture
def env(tmp_path: Path):
    with Environment.open(tmp_path / "run", _config()) as e:
        yield e


def test_draws_come_at_the_controllers_difficulty_and_a_solved_batch_raises_it(env: Environment) -> None:
    start = env.difficulties()[FAMILY]
    drawn = env.draw(2)
    assert len(drawn) == 2 and {d.origin for d in drawn} == {"generated"}
    assert all(d.task.difficulty == start and d.task.family == FAMILY for d in drawn)
    ids = [d.task.task_id for d in drawn for _ in range(2)]
    graded, report = env.step(ids, _solve(env, ids), model="test-model")
    assert all(g.passed for g in graded)
    assert [(d.family, d.old_difficulty, d.new_difficulty) for d in report.decisions] == [(FAMILY, start, start + 0.05)]
    assert env.difficulties()[FAMILY] == pytest.approx(start + 0.05)
    assert all(d.task.difficulty == pytest.approx(start + 0.05) for d in env.draw(2))


def test_a_report_is_recorded_as_the_loop_records_an_iteration(env: Environment) -> None:
    drawn = env.draw(2)
    ids = [d.task.task_id for d in drawn]
    answers = _solve(env, ids[:1]) + ["I cannot."]
    _, report = env.step(ids, answers, model="trl:test", new_tokens=[12, 3])
    assert report.iteration == 0 and report.metrics["rollouts"] == 2 and report.metrics["pass_rate"] == 0.5
    assert report.metrics["tasks_accepted"] == 2 and report.metrics["no_code_share"] == 0.5
    with RunStore(env.run_dir, read_only=True) as store:
        assert store.last_iteration() == 0
        rows = store.query("SELECT c.candidate_id, c.model, c.new_tokens, e.status, r.total FROM candidates c"
                           " JOIN executions e USING(candidate_id) JOIN rewards r USING(candidate_id) ORDER BY c.rowid")
        assert [r[:3] for r in rows] == [(f"{ids[0]}:0:0", "trl:test", 12), (f"{ids[1]}:0:0", "trl:test", 3)]
        assert [r[3] for r in rows] == ["passed", "no_entry_point"]
        assert store.query("SELECT COUNT(*) FROM task_uses WHERE iteration = 0 AND origin = 'generated'")[0][0] == 2
        assert store.query("SELECT COUNT(*) FROM audit WHERE kind = 'candidate'")[0][0] == 2
        assert store.query("SELECT COUNT(*) FROM audit WHERE kind = 'task'")[0][0] == 2
        assert store.state_after(0).controller["steps"] == 2
        summary = summarise(store)  # what `spade status` shows
        assert summary.iterations == 1 and summary.tasks_accepted == 2
    assert (env.run_dir / "metrics.jsonl").read_text().count("\n") == 1
    assert export_run(env.run_dir, "sft", env.run_dir / "sft.jsonl")[1] == 1  # the exports read it too


def test_a_task_reported_again_counts_as_replay_and_replay_draws_return_old_tasks(tmp_path: Path) -> None:
    with Environment.open(tmp_path / "run", _config(**{"evolution.replay_ratio": 0.5})) as env:
        first = env.draw(2)
        ids = [d.task.task_id for d in first]
        env.step(ids, ["wrong", "wrong"])
        _, report = env.step(ids[:1], ["wrong"])
        assert report.metrics["tasks_replayed"] == 1
        again = env.draw(2)
        assert [d.origin for d in again].count("replay") == 1
        assert next(d for d in again if d.origin == "replay").task.task_id in ids


def test_a_retried_report_with_the_same_key_is_counted_once(env: Environment) -> None:
    ids = [d.task.task_id for d in env.draw(1)]
    graded = env.score(ids, _solve(env, ids))
    first, second = env.report(graded, key="batch-7"), env.report(graded, key="batch-7")
    assert first.committed and not second.committed and second.iteration == first.iteration == 0
    with RunStore(env.run_dir, read_only=True) as store:
        assert store.last_iteration() == 0 and store.query("SELECT COUNT(*) FROM candidates")[0][0] == 1


def test_opening_an_existing_run_with_a_different_config_is_refused(env: Environment) -> None:
    with pytest.raises(ConfigError, match="already holds a run"):
        Environment.open(env.run_dir, _config(**{"evolution.window": 9}))
    Environment.open(env.run_dir).close()  # without a config it reopens


def test_concurrent_reports_from_threads_each_commit_one_iteration_and_lose_no_observation(env: Environment) -> None:
    ids = [d.task.task_id for d in env.draw(2)]
    answers = _solve(env, ids)
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            for _ in range(3):
                env.step(ids, answers)
        except BaseException as exc:  # noqa: BLE001 - surfaced by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    with RunStore(env.run_dir, read_only=True) as store:
        assert [r[0] for r in store.query("SELECT iteration FROM iterations ORDER BY iteration")] == list(range(12))
        assert store.query("SELECT COUNT(*) FROM candidates")[0][0] == 24
        assert store.state_after(11).controller["steps"] == 24  # 12 reports x 2 tasks: none lost


def _report_loop(env: Environment, ids: list[str], reports: int) -> None:
    answers = [f"```python\n{env.task(t).reference_solution}\n```" for t in ids]
    for _ in range(reports):
        env.step(ids, answers)
    env.close()


def test_processes_sharing_a_pickled_environment_serialise_on_the_database(env: Environment) -> None:
    ids = [d.task.task_id for d in env.draw(2)]
    ctx = multiprocessing.get_context("spawn")  # what trainers' worker pools use; the env travels pickled
    procs = [ctx.Process(target=_report_loop, args=(pickle.loads(pickle.dumps(env)), ids, 3)) for _ in range(2)]
    for p in procs:
        p.start()
    env.step(ids, ["no"] * 2)
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    with RunStore(env.run_dir, read_only=True) as store:
        assert store.last_iteration() == 6 and store.query("SELECT COUNT(*) FROM candidates")[0][0] == 14
        assert store.state_after(6).controller["steps"] == 14


def _report_forever(run_dir: str, ids: list[str]) -> None:
    env = Environment.open(run_dir)
    answers = [f"```python\n{env.task(t).reference_solution}\n```" for t in ids]
    while True:
        env.step(ids, answers)


def test_a_sigkilled_reporter_leaves_whole_iterations_and_the_next_one_continues(env: Environment) -> None:
    ids = [d.task.task_id for d in env.draw(2)]
    proc = multiprocessing.get_context("fork").Process(target=_report_forever, args=(str(env.run_dir), ids))
    proc.start()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with RunStore(env.run_dir, read_only=True) as store:
            if store.last_iteration() >= 2:
                break
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.join()
    with sqlite3.connect(env.run_dir / "spade.sqlite") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    with RunStore(env.run_dir, read_only=True) as store:
        last = store.last_iteration()
        counts = store.query("SELECT iteration, COUNT(*) FROM candidates GROUP BY iteration ORDER BY iteration")
        assert counts == [(i, 2) for i in range(last + 1)]  # every committed iteration is whole
        steps = store.state_after(last).controller["steps"]
    _, report = Environment.open(env.run_dir).step(ids, _solve(env, ids))
    assert report.iteration == last + 1
    with RunStore(env.run_dir, read_only=True) as store:
        assert store.state_after(last + 1).controller["steps"] == steps + 2


def test_a_task_of_the_callers_own_is_graded_and_stored_with_its_report(env: Environment) -> None:
    from spade.evaluate import load_suite

    task = next(t for t in load_suite("builtin") if t.task_id == "builtin/sum_evens")
    _, report = env.step([task], [f"```python\n{task.reference_solution}\n```"])
    assert report.metrics["tasks_accepted"] == 1 and report.metrics["pass_rate"] == 1.0
    with RunStore(env.run_dir, read_only=True) as store:
        assert store.task("builtin/sum_evens") == task
        assert store.query("SELECT origin FROM task_uses WHERE task_id = 'builtin/sum_evens'") == [("generated",)]
