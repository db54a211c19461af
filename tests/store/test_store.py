import sqlite3
import subprocess
import sys

import pytest

from spade.errors import StoreError
from spade.records import (
    Candidate,
    Decision,
    ExecResult,
    ExecStatus,
    Rejection,
    Reward,
    Rollout,
    Task,
    TestCase,
    TestOutcome,
    TestStatus,
)
from spade.store import IterationTask, IterationWrite, RunState, RunStore

TASK = Task("t1", "Return x.", "def f(x: int) -> int:", "f", 0.3, test_cases=(TestCase((1,), 1),),
            hidden_test_cases=(TestCase((2,), 2),), reference_solution="def f(x):\n    return x\n", family="fam")


def _write(iteration: int) -> IterationWrite:
    w = IterationWrite(iteration)
    if iteration == 0:
        w.tasks.append(IterationTask(TASK, "generated"))
    else:
        w.tasks.append(IterationTask(TASK, "replay"))
    # The same draft rejected twice in one iteration (identical content from two indices) is two rows.
    w.rejections += [Rejection("d1", "fam", 0.3, "duplicate_exact", "of t1")] * 2
    cand = Candidate(f"t1:{iteration}:0", "t1", "```python\ndef f(x): return x```", "def f(x): return x", "m", "h")
    result = ExecResult(ExecStatus.PASSED, (TestOutcome(0, False, TestStatus.PASSED),
                                            TestOutcome(1, True, TestStatus.PASSED)), 0.01, 900, 0.02)
    w.rollouts.append(Rollout(cand, result, Reward(1.09, 1.0, 0.09)))
    w.decisions.append(Decision(4, "fam", 0.3, 0.35, 0.9, 8, 2, "up"))
    w.metrics = {"pass_rate": 1.0}
    w.state = RunState(controller={"x": iteration})
    return w


def test_iterations_commit_atomically_and_are_never_counted_twice(tmp_path):
    with RunStore(tmp_path, create=True) as store:
        store.commit_iteration(_write(0))
        with pytest.raises(StoreError, match="already committed"):
            store.commit_iteration(_write(0))
        assert store.last_iteration() == 0
        assert store.query("SELECT COUNT(*) FROM candidates") == [(1,)]  # the refused write left nothing
        store.commit_iteration(_write(1))
        assert store.state_after(1) == RunState(controller={"x": 1})
        assert store.query("SELECT COUNT(*) FROM rejections") == [(4,)]
        assert store.task("t1") == TASK
        assert store.passing_samples(0, 10)[0][0] == "t1"
        assert store.task_pass_history() == {"t1": [1.0, 1.0]}


def test_a_failed_write_rolls_back_the_whole_iteration(tmp_path):
    with RunStore(tmp_path, create=True) as store:
        w = _write(0)
        w.rollouts.append(w.rollouts[0])  # duplicate candidate id: the insert fails mid-iteration
        with pytest.raises(sqlite3.IntegrityError):
            store.commit_iteration(w)
        assert store.last_iteration() == -1
        assert store.query("SELECT COUNT(*) FROM tasks") == [(0,)]


def test_opening_a_directory_without_a_run_is_a_store_error(tmp_path):
    with pytest.raises(StoreError, match="not a SPADE run directory"):
        RunStore(tmp_path)


HOLD_LOCK = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
conn.execute("COMMIT")
"""


def _hold_write_lock(path, seconds: float) -> subprocess.Popen:
    """Another process holding the database's write lock (BEGIN EXCLUSIVE) for `seconds`."""
    proc = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(path), str(seconds)], stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdout.readline().strip() == "locked"
    return proc


def test_a_commit_waits_out_a_short_lock(tmp_path):
    with RunStore(tmp_path, create=True, busy_timeout_s=20) as store:
        store.commit_iteration(_write(0))
        holder = _hold_write_lock(store.path, 1.0)
        store.commit_iteration(_write(1))  # retried under the busy timeout until the other writer let go
        holder.wait(timeout=30)
        assert store.last_iteration() == 1


def test_a_commit_locked_out_is_one_line_and_loses_no_committed_iteration(tmp_path):
    with RunStore(tmp_path, create=True, busy_timeout_s=0.5) as store:
        store.commit_iteration(_write(0))
        holder = _hold_write_lock(store.path, 5.0)
        with pytest.raises(StoreError) as info:
            store.commit_iteration(_write(1))
        message = str(info.value)
        assert info.value.exit_code == 3 and "\n" not in message
        assert "locked by another process" in message and "iteration 1" in message
        assert "iterations 0-0 are committed and intact" in message and f"--resume {tmp_path}" in message
        holder.kill()
        holder.wait()
        assert store.last_iteration() == 0
        assert store.query("SELECT COUNT(*) FROM candidates") == [(1,)]
        store.commit_iteration(_write(1))  # the same iteration commits once the lock is gone
        assert store.last_iteration() == 1


def test_a_read_only_store_reads_a_live_run_and_never_writes(tmp_path):
    with RunStore(tmp_path, create=True) as writer:
        writer.commit_iteration(_write(0))
        with RunStore(tmp_path, read_only=True) as reader:
            assert reader.last_iteration() == 0
            writer.commit_iteration(_write(1))
            assert reader.last_iteration() == 1  # sees commits made after it opened
            with pytest.raises(StoreError, match="not writable"):
                reader.set_meta("x", "y")


def test_a_file_that_is_not_a_database_is_one_line(tmp_path):
    (tmp_path / "spade.sqlite").write_bytes(b"not a database at all" * 100)
    for read_only in (False, True):
        with pytest.raises(StoreError, match="is it a SPADE run database"):
            RunStore(tmp_path, read_only=read_only)


def test_the_memory_term_and_the_sandbox_events_of_a_rollout_are_stored(tmp_path):
    w = IterationWrite(0)
    w.tasks.append(IterationTask(TASK, "generated"))
    cand = Candidate("t1:0:0", "t1", "c", "def f(x): return x", "m", "h")
    result = ExecResult(ExecStatus.PASSED, (TestOutcome(0, False, TestStatus.PASSED),), 0.01, 400_000, 0.02,
                        events=("file_access", "stray_output"), memory_limit_kb=524_288)
    w.rollouts.append(Rollout(cand, result, Reward(0.9, 1.0, memory_penalty=0.02)))
    with RunStore(tmp_path, create=True) as store:
        store.commit_iteration(w)
        assert store.query("SELECT memory_penalty FROM rewards") == [(0.02,)]
        stored = store.query("SELECT json_extract(json, '$.events'), json_extract(json, '$.memory_limit_kb')"
                             " FROM executions")
    assert stored == [('["file_access","stray_output"]', 524_288)]


def _downgrade_to_version_1(path) -> None:
    """What a run made before the memory term looks like: no rewards.memory_penalty, schema_version 1."""
    conn = sqlite3.connect(path)
    conn.execute("ALTER TABLE rewards DROP COLUMN memory_penalty")
    conn.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()


def test_a_run_from_schema_version_1_is_read_as_is_and_upgraded_when_opened_for_writing(tmp_path):
    store = RunStore(tmp_path, create=True)
    store.commit_iteration(_write(0))
    store.close()
    _downgrade_to_version_1(tmp_path / "spade.sqlite")
    reader = RunStore(tmp_path, read_only=True)  # status / report on an old run: no upgrade, no write
    assert reader.meta("schema_version") == "1" and reader.last_iteration() == 0
    reader.close()
    writer = RunStore(tmp_path)
    assert writer.meta("schema_version") == "3"
    writer.commit_iteration(_write(1))
    assert writer.last_iteration() == 1
    rows = writer.conn.execute("SELECT memory_penalty FROM rewards ORDER BY rowid").fetchall()
    assert rows == [(0.0,), (0.0,)]
    writer.close()


def test_a_run_from_an_unknown_schema_version_is_refused_in_one_line(tmp_path):
    RunStore(tmp_path, create=True).close()
    conn = sqlite3.connect(tmp_path / "spade.sqlite")
    conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="schema version 99"):
        RunStore(tmp_path)
    with pytest.raises(StoreError, match="schema version 99"):
        RunStore(tmp_path, read_only=True)
