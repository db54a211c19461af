import pytest

from spade.curriculum.calibration import TaskMeasure, calibration_table, spearman


def test_error_bias_and_rank_correlation_per_group():
    rows = calibration_table([
        TaskMeasure("a", 0.2, 4, 4),  # measured 0.0
        TaskMeasure("a", 0.5, 4, 2),  # measured 0.5
        TaskMeasure("a", 0.8, 4, 0),  # measured 1.0
        TaskMeasure("b", 0.5, 8, 8),  # measured 0.0
        TaskMeasure("b", 0.9, 0, 0),  # never attempted: no measurement, left out
    ])
    a, b = rows
    assert (a.group, a.tasks, a.rollouts) == ("a", 3, 12)
    assert a.mae == pytest.approx((0.2 + 0.0 + 0.2) / 3)
    assert a.bias == pytest.approx(0.0)
    assert a.rank_corr == pytest.approx(1.0)
    assert (b.tasks, b.mae, b.bias, b.rank_corr) == (1, 0.5, -0.5, None)


def test_spearman_handles_ties_and_reversals():
    assert spearman([1, 2, 3, 4], [40, 30, 20, 10]) == pytest.approx(-1.0)
    assert spearman([1, 1, 2, 3], [5, 5, 6, 7]) == pytest.approx(1.0)
    assert spearman([1, 2, 3], [7, 7, 7]) is None  # a constant side has no ranking
