"""evaluate with the real embedded model on a tiny slice of the builtin suite (slow: loads and samples)."""

from __future__ import annotations

import pytest

from spade.config import SpadeConfig
from spade.evaluate.evaluator import evaluate
from spade.evaluate.suites import load_suite


@pytest.mark.slow
def test_a_real_model_evaluation_reports_bounded_pass_at_k_for_every_task(pool: object) -> None:
    from spade.policy.embedded import EmbeddedPolicy

    cfg = SpadeConfig()
    tasks = [t for t in load_suite("builtin") if t.task_id in
             {"builtin/sum_evens", "builtin/is_even", "builtin/fizzbuzz"}]
    policy = EmbeddedPolicy(cfg.sampling, cfg.training)
    report = evaluate(policy, pool, tasks, samples=2, temperature=0.8, ks=(1, 2, 5), seed=0, suite="builtin")

    assert report.suite == "builtin" and report.n_tasks == 3 and report.samples == 2
    assert sorted(report.pass_at_k) == [1, 2]  # k=5 needs more samples than were drawn
    assert all(0.0 <= v <= 1.0 for v in report.pass_at_k.values())
    assert report.pass_at_k[1] <= report.pass_at_k[2]
    assert {t for t, _, _ in report.per_task} == {t.task_id for t in tasks}
    assert all(n == 2 and 0 <= c <= n for _, n, c in report.per_task)
    assert set(report.per_tag) >= {"eval", "easy", "medium"}
    assert report.per_tag["eval"] == report.pass_at_k
