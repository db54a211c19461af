"""EvalReport: unbiased pass@k averaged over tasks and tags, and refusal of impossible ks."""

from __future__ import annotations

import json
import math

import pytest

from spade.errors import ConfigError
from spade.evaluate.report import build_report, usable_ks
from spade.records import Task


def _task(task_id: str, *tags: str) -> Task:
    return Task(task_id=task_id, description="d", signature="def f():", entry_point="f", difficulty=0.5, tags=tags)


def test_pass_at_1_is_the_mean_fraction_correct_over_tasks() -> None:
    tasks = [_task("a", "eval", "x"), _task("b", "eval", "y")]
    report = build_report("s", tasks, [(4, 1), (4, 4)], ks=(1,))
    assert report.pass_at_k[1] == pytest.approx((0.25 + 1.0) / 2)


def test_pass_at_k_uses_the_unbiased_estimator() -> None:
    report = build_report("s", [_task("a")], [(5, 2)], ks=(1, 2, 5))
    expected_2 = 1 - math.comb(3, 2) / math.comb(5, 2)
    assert report.pass_at_k[2] == pytest.approx(expected_2)
    assert report.pass_at_k[5] == 1.0


def test_per_tag_averages_only_the_tasks_carrying_the_tag() -> None:
    tasks = [_task("a", "eval", "x"), _task("b", "eval", "y"), _task("c", "eval", "y")]
    report = build_report("s", tasks, [(2, 2), (2, 0), (2, 1)], ks=(1,))
    assert report.per_tag["x"][1] == 1.0
    assert report.per_tag["y"][1] == pytest.approx(0.25)
    assert report.per_tag["eval"][1] == pytest.approx(0.5)


def test_ks_larger_than_the_samples_are_left_out() -> None:
    report = build_report("s", [_task("a")], [(2, 1)], ks=(1, 2, 10))
    assert sorted(report.pass_at_k) == [1, 2]


def test_ks_that_all_exceed_the_samples_raise_config_error() -> None:
    with pytest.raises(ConfigError, match="samples = 1"):
        usable_ks((5, 10), samples=1)


def test_a_k_below_one_raises_config_error() -> None:
    with pytest.raises(ConfigError, match="k = 0"):
        usable_ks((0, 1), samples=4)


def test_to_dict_round_trips_through_json() -> None:
    report = build_report("builtin", [_task("a", "eval")], [(3, 1)], ks=(1, 3))
    d = json.loads(json.dumps(report.to_dict()))
    assert d["suite"] == "builtin" and d["n_tasks"] == 1 and d["samples"] == 3
    assert d["pass_at_k"]["3"] == 1.0
    assert d["per_task"] == [{"task_id": "a", "n": 3, "c": 1}]
