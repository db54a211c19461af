import pytest

from spade.errors import StoreError
from spade.records import Candidate, Decision, ExecResult, ExecStatus, Reward, Task, TestCase, TestOutcome, TestStatus
from spade.store import IterationWrite, RunStore

TASK = Task("t1", "Return x.", "def f(x: int) -> int:", "f", 0.3, test_cases=(TestCase((1,), 1),),
            hidden_test_cases=(TestCase((2,), 2),), reference_solution="def f(x):\n    return x\n", family="fam")


def _write(iteration: int) -> IterationWrite:
    w = IterationWrite(iteration)
    if iteration == 0:
        w.tasks.append((TASK, "generated"))
    else:
        w.tasks.append((TASK, "replay"))
    # The same draft rejected twice in one iteration (identical content from two indices) is two rows.
    w.rejections += [("d1", "fam", 0.3, "duplicate_exact", "of t1")] * 2
    cand = Candidate(f"t1:{iteration}:0", "t1", "```python\ndef f(x): return x```", "def f(x): return x", "m", "h")
    result = ExecResult(ExecStatus.PASSED, (TestOutcome(0, False, TestStatus.PASSED),
                                            TestOutcome(1, True, TestStatus.PASSED)), 0.01, 900, 0.02)
    w.rollouts.append((cand, result, Reward(1.09, 1.0, 0.09)))
    w.decisions.append(Decision(4, "fam", 0.3, 0.35, 0.9, 8, 2, "up"))
    w.metrics = {"pass_rate": 1.0}
    w.state = {"controller": {"x": iteration}}
    return w


def test_iterations_commit_atomically_and_are_never_counted_twice(tmp_path):
    with RunStore(tmp_path, create=True) as store:
        store.commit_iteration(_write(0))
        with pytest.raises(StoreError, match="already committed"):
            store.commit_iteration(_write(0))
        assert store.last_iteration() == 0
        assert store.query("SELECT COUNT(*) FROM candidates") == [(1,)]  # the refused write left nothing
        store.commit_iteration(_write(1))
        assert store.state_after(1) == {"controller": {"x": 1}}
        assert store.query("SELECT COUNT(*) FROM rejections") == [(4,)]
        assert store.task("t1") == TASK
        assert store.passing_samples(0, 10)[0][0] == "t1"
        assert store.task_pass_history() == {"t1": [1.0, 1.0]}


def test_a_failed_write_rolls_back_the_whole_iteration(tmp_path):
    with RunStore(tmp_path, create=True) as store:
        w = _write(0)
        w.rollouts.append(w.rollouts[0])  # duplicate candidate id: the insert fails mid-iteration
        with pytest.raises(Exception):
            store.commit_iteration(w)
        assert store.last_iteration() == -1
        assert store.query("SELECT COUNT(*) FROM tasks") == [(0,)]


def test_opening_a_directory_without_a_run_is_a_store_error(tmp_path):
    with pytest.raises(StoreError, match="not a SPADE run directory"):
        RunStore(tmp_path)
