"""Paired comparison of two checkpoints: the bootstrap CI of the difference and the one-sided sign test."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spade.evaluate.stats import mean_per_task, paired_bootstrap, paired_scores, per_task_pass, sign_test_worse

scores = st.lists(st.tuples(st.sampled_from([0.0, 0.25, 0.5, 1.0]), st.sampled_from([0.0, 0.5, 1.0])),
                  min_size=1, max_size=60)


@settings(max_examples=60, deadline=None)
@given(scores, st.integers(0, 2**32))
def test_the_interval_holds_the_mean_difference_and_lies_within_its_bounds(pairs, seed) -> None:
    old, new = [a for a, _ in pairs], [b for _, b in pairs]
    d = paired_bootstrap(old, new, resamples=400, seed=seed)
    assert d.low <= d.diff <= d.high
    assert -1 <= d.low and d.high <= 1
    assert d.diff == pytest.approx(sum(new) / len(new) - sum(old) / len(old))
    assert d == paired_bootstrap(old, new, resamples=400, seed=seed)


@settings(max_examples=40, deadline=None)
@given(scores)
def test_swapping_the_checkpoints_mirrors_the_interval(pairs) -> None:
    old, new = [a for a, _ in pairs], [b for _, b in pairs]
    d, m = paired_bootstrap(old, new, resamples=300), paired_bootstrap(new, old, resamples=300)
    assert m.diff == pytest.approx(-d.diff)
    assert (m.low, m.high) == pytest.approx((-d.high, -d.low))


def test_identical_checkpoints_give_a_zero_width_interval_at_zero() -> None:
    d = paired_bootstrap([1, 0, 1, 1], [1, 0, 1, 1])
    assert (d.diff, d.low, d.high) == (0.0, 0.0, 0.0)


def test_a_clear_gain_on_many_tasks_excludes_zero_and_a_one_task_change_does_not() -> None:
    old = [0.0] * 200
    clear = paired_bootstrap(old, [1.0] * 40 + [0.0] * 160)
    assert clear.low > 0 and "95% CI" in clear.describe() and "200 tasks" in clear.describe()
    one = paired_bootstrap(old, [1.0] + [0.0] * 199)
    assert one.low <= 0 < one.high


def test_pairing_narrows_the_interval_when_both_checkpoints_solve_the_same_tasks() -> None:
    # The same 50 tasks pass for both, plus 10 more for the new one: paired, the noise of the shared tasks cancels.
    old = [1.0] * 50 + [0.0] * 150
    new = [1.0] * 60 + [0.0] * 140
    d = paired_bootstrap(old, new)
    assert d.low > 0


def test_the_sign_test_is_exact_and_one_sided() -> None:
    # 5 worse, 0 better: p = 1/32. 0 worse, 5 better: nothing suggests worse, p = 1.
    assert sign_test_worse([1] * 5, [0] * 5) == pytest.approx(1 / 32)
    assert sign_test_worse([0] * 5, [1] * 5) == 1.0
    assert sign_test_worse([1, 1, 0], [1, 1, 0]) == 1.0  # ties only
    # 3 worse, 1 better: P(X >= 3 | Bin(4, 1/2)) = 5/16
    assert sign_test_worse([1, 1, 1, 0, 1], [0, 0, 0, 1, 1]) == pytest.approx(5 / 16)


@given(st.integers(0, 30), st.integers(0, 30))
def test_more_tasks_getting_worse_never_raises_the_p_value(worse, better) -> None:
    old = [1.0] * worse + [0.0] * better
    new = [0.0] * worse + [1.0] * better
    p = sign_test_worse(old, new)
    assert 0 < p <= 1
    assert sign_test_worse([*old, 1.0], [*new, 0.0]) <= p


def test_unequal_lengths_are_a_callers_bug() -> None:
    with pytest.raises(ValueError, match="length"):
        paired_bootstrap([1.0], [1.0, 0.0])
    with pytest.raises(ValueError, match="length"):
        sign_test_worse([1.0], [])


def test_paired_scores_keep_only_the_tasks_both_reports_graded() -> None:
    old = per_task_pass({"per_task": [{"task_id": "a", "n": 1, "c": 1}, {"task_id": "b", "n": 4, "c": 1}]})
    new = per_task_pass({"per_task": [{"task_id": "b", "n": 4, "c": 3}, {"task_id": "c", "n": 1, "c": 0}]})
    assert paired_scores(old, new) == (["b"], [0.25], [0.75])


def test_seed_means_average_each_task_over_the_seeds_that_graded_it() -> None:
    seeds = [{"a": 1.0, "b": 0.0, "c": 1.0}, {"b": 1.0, "a": 0.0}, {"a": 1.0, "b": 1.0, "d": 0.5}]
    means = mean_per_task(seeds)
    assert list(means) == ["a", "b", "c", "d"]
    assert means["a"] == pytest.approx(2 / 3) and means["b"] == pytest.approx(2 / 3)
    assert means["c"] == 1.0 and means["d"] == 0.5  # one seed graded each: its score
    assert mean_per_task(seeds[:1]) == seeds[0]
    with pytest.raises(ValueError, match="at least one"):
        mean_per_task([])
