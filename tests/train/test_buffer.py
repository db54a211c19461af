"""The training buffer: verified samples only, deduplicated per task, from the learning zone when asked."""

from hypothesis import given
from hypothesis import strategies as st

from spade.train.buffer import Sample, in_learning_zone, pass_rates, select

A1 = "def f(x):\n    return x + 1\n"
A1_RENAMED = "def f(y):\n    # add one\n    return y + 1\n"  # the same program as A1 after canonicalisation
A2 = "def f(x):\n    return 1 + x\n"
WRONG = "def f(x):\n    return x\n"


def s(task, code, passed, variant=0):
    return Sample(task, f"```python\n{code}```", code, passed, variant)


def test_pass_rates_are_the_share_of_each_tasks_samples_that_passed():
    rows = [s("a", A1, True), s("a", WRONG, False), s("a", WRONG, False), s("a", A2, True), s("b", A1, True)]
    assert pass_rates(rows) == {"a": 0.5, "b": 1.0}


def test_learning_zone_is_strictly_between_never_and_always():
    assert not in_learning_zone(0.0) and not in_learning_zone(1.0)
    assert in_learning_zone(0.125) and in_learning_zone(0.875)


def test_the_learning_zone_keeps_exactly_the_passing_samples_of_tasks_solved_sometimes():
    rows = [
        s("sometimes", A1, True), s("sometimes", WRONG, False), s("sometimes", A2, True),
        s("always", A1, True), s("always", A2, True),
        s("never", WRONG, False), s("never", WRONG, False),
    ]
    chosen = select(rows, limit=100, learning_zone=True)
    assert [(c.task_id, c.code) for c in chosen] == [("sometimes", A1), ("sometimes", A2)]
    everything = select(rows, limit=100)
    assert [(c.task_id, c.code) for c in everything] == [
        ("sometimes", A1), ("sometimes", A2), ("always", A1), ("always", A2)]


def test_duplicates_within_a_task_are_kept_once_but_the_same_code_counts_for_each_task():
    rows = [s("a", A1, True, 0), s("a", A1_RENAMED, True, 1), s("a", A1, True, 2), s("b", A1, True), s("a", WRONG, False)]
    chosen = select(rows, limit=100)
    assert [(c.task_id, c.prompt_variant) for c in chosen] == [("a", 0), ("b", 0)]


def test_per_task_cap_and_limit_keep_the_newest_first():
    rows = [s("a", f"def f(x):\n    return x + {k}\n", True) for k in range(5)] + [s("b", A1, True)]
    assert [c.code for c in select(rows, limit=100, per_task=2)] == [rows[0].code, rows[1].code, A1]
    assert [c.code for c in select(rows, limit=3)] == [r.code for r in rows[:3]]


def test_unparsable_or_hostile_code_is_compared_as_written():
    rows = [s("a", "def f(:\n", True), s("a", "def f(:\n", True), s("a", "x\0y", True), s("a", "(" * 5000, True)]
    assert len(select(rows, limit=100)) == 3


@given(st.lists(st.tuples(st.sampled_from("abc"), st.integers(0, 3), st.booleans()), max_size=30),
       st.booleans(), st.integers(0, 3), st.integers(1, 40))
def test_select_takes_only_passing_samples_within_its_bounds_and_is_idempotent(raw, zone, per_task, limit):
    rows = [s(t, f"def f(x):\n    return x + {k}\n", p) for t, k, p in raw]
    chosen = select(rows, limit=limit, learning_zone=zone, per_task=per_task)
    rates = pass_rates(rows)
    assert len(chosen) <= limit and all(c.passed for c in chosen)
    assert len({(c.task_id, c.code) for c in chosen}) == len(chosen)
    assert all(in_learning_zone(rates[c.task_id]) for c in chosen) or not zone
    if per_task:
        assert all(sum(c.task_id == t for c in chosen) <= per_task for t in "abc")
    assert select(chosen, limit=limit, per_task=per_task) == chosen


def _rollout(task_id, iteration, k, code, passed):
    from spade.records import Candidate, ExecResult, ExecStatus, Reward, Rollout, TestOutcome, TestStatus

    status = ExecStatus.PASSED if passed else ExecStatus.FAILED
    test = TestOutcome(0, False, TestStatus.PASSED if passed else TestStatus.WRONG_ANSWER)
    cand = Candidate(f"{task_id}:{iteration}:{k}", task_id, f"```python\n{code}```", code, "m", "h", prompt_variant=k)
    return Rollout(cand, ExecResult(status, (test,), 0.01, 900, 0.02), Reward(float(passed), float(passed), 0.0))


def _store_with(tmp_path, rollouts_by_iteration):
    from spade.records import Task, TestCase
    from spade.store import IterationTask, IterationWrite, RunStore

    store = RunStore(tmp_path / "run", create=True)
    known: set[str] = set()
    for i, rows in enumerate(rollouts_by_iteration):
        w = IterationWrite(i)
        for tid in sorted({r.task_id for r in rows}):
            task = Task(tid, "d", "def f(x):", "f", 0.3, test_cases=(TestCase((1,), 2),))
            w.tasks.append(IterationTask(task, "replay" if tid in known else "generated"))
            known.add(tid)
        w.rollouts.extend(rows)
        store.commit_iteration(w)
    return store


def test_the_update_buffer_puts_this_iteration_first_keeps_the_replay_share_and_rates_over_the_whole_run(tmp_path):
    from spade.config import TrainingConfig
    from spade.train.buffer import rft_buffer

    old_code = [f"def f(x):\n    return x + {k}\n" for k in range(4)]
    earlier = [_rollout("old", 0, k, c, True) for k, c in enumerate(old_code)]
    earlier += [_rollout("mixed", 0, 0, A1, True), _rollout("mixed", 0, 1, WRONG, False)]
    # "mixed" passes 2 of its 4 rollouts over the run (in the zone), "easy" and "old" all of theirs.
    fresh = [_rollout("mixed", 1, 0, WRONG, False), _rollout("mixed", 1, 1, A2, True)]
    fresh += [_rollout("easy", 1, k, c, True) for k, c in enumerate([A1, A2])]
    with _store_with(tmp_path, [earlier]) as store:
        cfg = TrainingConfig(max_examples=4)
        chosen, stats = rft_buffer(fresh, store, cfg, replay_ratio=0.5)
        assert [(s.task_id, s.code) for s in chosen] == [("mixed", A2), ("easy", A1),
                                                         ("old", old_code[0]), ("old", old_code[1])]
        assert stats["fresh"] == 2 and stats["replayed"] == 2
        zone, stats = rft_buffer(fresh, store, cfg.model_copy(update={"learning_zone": True}), replay_ratio=0.5)
        assert [(s.task_id, s.code, s.prompt_variant) for s in zone] == [("mixed", A2, 1), ("mixed", A1, 0)]
        assert stats["zone_tasks"] == 1


def test_preference_pairs_are_a_passing_and_a_failing_sample_of_the_same_task_each_used_once():
    from spade.train.buffer import preference_pairs

    wrong2 = "def f(x):\n    return x - 1\n"
    rows = [s("a", A1, True), s("b", A1, True), s("a", WRONG, False), s("a", A2, True), s("a", wrong2, False),
            s("a", A1_RENAMED, True), s("a", WRONG, False), s("b", A2, True), s("c", WRONG, False)]
    pairs = preference_pairs(rows, limit=100)
    assert [(good.task_id, good.code, bad.code) for good, bad in pairs] == [("a", A1, WRONG), ("a", A2, wrong2)]
    assert all(good.passed and not bad.passed and good.task_id == bad.task_id for good, bad in pairs)
    assert preference_pairs(rows, limit=100, per_task=1) == pairs[:1]
    assert preference_pairs(rows, limit=1) == pairs[:1]


@given(st.lists(st.tuples(st.sampled_from("abc"), st.integers(0, 3), st.booleans()), max_size=30),
       st.integers(0, 3), st.integers(1, 40))
def test_preference_pairs_never_reuse_a_sample_and_always_pair_within_a_task(raw, per_task, limit):
    from spade.train.buffer import preference_pairs

    rows = [s(t, f"def f(x):\n    return x + {k}\n", p) for t, k, p in raw]
    pairs = preference_pairs(rows, limit=limit, per_task=per_task)
    assert len(pairs) <= limit
    assert all(good.passed and not bad.passed and good.task_id == bad.task_id for good, bad in pairs)
    used = [x for pair in pairs for x in pair]
    assert len({id(x) for x in used}) == len(used)
    for t in "abc":  # as many pairs as the shorter side of the task's distinct samples allows, within the bounds
        good = {r.code for r in rows if r.task_id == t and r.passed}
        bad = {r.code for r in rows if r.task_id == t and not r.passed}
        n = sum(g.task_id == t for g, _ in pairs)
        assert n <= min(len(good), len(bad), per_task or 99)
        if len(pairs) < limit:
            assert n == min(len(good), len(bad), per_task or 99)


def test_the_dpo_buffer_pairs_this_iterations_rollouts_with_the_runs_earlier_ones(tmp_path):
    from spade.config import TrainingConfig
    from spade.train.buffer import dpo_buffer

    earlier = [_rollout("t", 0, 0, WRONG, False), _rollout("u", 0, 1, A1, True)]
    fresh = [_rollout("t", 1, 2, A1, True), _rollout("u", 1, 0, A1, True)]
    with _store_with(tmp_path, [earlier, [_rollout("t", 1, 5, WRONG, False)]]) as store:
        pairs, stats = dpo_buffer(fresh, store, TrainingConfig(max_examples=8), {})
    assert [(p.task.task_id, p.chosen, p.rejected, p.prompt_variant) for p in pairs] == [
        ("t", f"```python\n{A1}```", f"```python\n{WRONG}```", 2)]  # "u" never failed: no pair
    assert stats == {"pairs": 1, "pair_tasks": 1}
