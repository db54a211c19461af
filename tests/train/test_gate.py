"""The eval gate: a pure, persisted decision (fast tests), and a real harmful update caught and undone (slow)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spade.errors import TrainingError
from spade.train.gate import EvalGate, lower_lr, tasks_digest

# Builtin tasks the base model answers greedily: it passes the first three (measured) and fails clamp.
EVAL_TASKS = ("sum_evens", "is_palindrome", "is_even", "clamp")


def test_first_observation_becomes_the_best() -> None:
    gate = EvalGate(margin=0.05)
    d = gate.observe("ckpt-1", 0.4)
    assert (d.rollback, d.new_best, d.best) == (False, True, "ckpt-1")


def test_a_higher_score_is_a_new_best_and_a_small_dip_is_tolerated() -> None:
    gate = EvalGate(margin=0.1)
    gate.observe("ckpt-1", 0.4)
    assert gate.observe("ckpt-2", 0.5).new_best
    d = gate.observe("ckpt-3", 0.42)
    assert (d.rollback, d.new_best, d.best) == (False, False, "ckpt-2")
    assert "within" in d.reason


def test_a_drop_beyond_the_margin_rolls_back_to_the_best() -> None:
    gate = EvalGate(margin=0.05)
    gate.observe("ckpt-1", 0.5)
    d = gate.observe("ckpt-2", 0.3)
    assert d.rollback and d.best == "ckpt-1" and not d.new_best
    assert "rolling back" in d.reason and gate.rollbacks == 1


def test_an_equal_score_keeps_the_earlier_best() -> None:
    gate = EvalGate(margin=0.0)
    gate.observe("ckpt-1", 0.5)
    d = gate.observe("ckpt-2", 0.5)
    assert d.best == "ckpt-1" and not d.rollback and not d.new_best


@given(st.floats(0, 1), st.lists(st.tuples(st.text(min_size=1, max_size=8), st.floats(0, 1)), max_size=12))
def test_state_round_trips_through_json_and_decides_the_same(margin, observations) -> None:
    a = EvalGate(margin)
    for i, (name, score) in enumerate(observations):
        if i == len(observations) // 2:
            a = EvalGate.from_state(json.loads(json.dumps(a.state())))
        a.observe(name, score)
    b = EvalGate(margin)
    for name, score in observations:
        b.observe(name, score)
    assert a.state() == b.state()


@given(st.floats(0, 1), st.lists(st.floats(0, 1), min_size=1, max_size=20))
def test_the_best_score_is_the_maximum_observed_and_rollbacks_only_below_it(margin, scores) -> None:
    gate = EvalGate(margin)
    for i, s in enumerate(scores):
        d = gate.observe(f"c{i}", s)
        assert d.rollback == (s < gate.best_score - margin)
    assert gate.best_score == max(scores)


def _dev(passed: int, failed: int, offset: int = 0) -> dict[str, float]:
    """Per-task dev scores: `passed` tasks at 1, then `failed` at 0, ids t<offset>…"""
    return {f"t{offset + i:03d}": float(i < passed) for i in range(passed + failed)}


def test_two_tasks_lost_on_a_twenty_task_dev_split_is_noise_not_a_rollback() -> None:
    # The tiny run's situation: one task is 5 points, so losing 2 of 20 crosses a 0.05 margin by chance alone.
    gate = EvalGate(margin=0.05, alpha=0.05)
    best = _dev(10, 10)
    gate.observe("ckpt-0", 0.5, best)
    worse = {**best, "t000": 0.0, "t001": 0.0}
    d = gate.observe("ckpt-1", 0.4, worse)
    assert not d.rollback and d.best == "ckpt-0"
    assert "within noise" in d.reason and "95% CI" in d.reason and "p = 0.25" in d.reason


def test_a_regression_beyond_noise_on_the_dev_split_rolls_back() -> None:
    gate = EvalGate(margin=0.05, alpha=0.05)
    best = _dev(40, 60)
    gate.observe("ckpt-0", 0.4, best)
    worse = {t: (0.0 if i < 8 else v) for i, (t, v) in enumerate(best.items())}  # 8 lost, none gained
    d = gate.observe("ckpt-1", 0.32, worse)
    assert d.rollback and d.best == "ckpt-0" and "rolling back" in d.reason
    assert gate.history[-1]["p_worse"] == pytest.approx(1 / 256)


def test_level_one_restores_the_margin_rule() -> None:
    gate = EvalGate(margin=0.05, alpha=1.0)
    best = _dev(10, 10)
    gate.observe("ckpt-0", 0.5, best)
    assert gate.observe("ckpt-1", 0.4, {**best, "t000": 0.0, "t001": 0.0}).rollback


def test_the_gate_compares_only_the_tasks_both_checkpoints_were_graded_on() -> None:
    # The run trained on t000-t004 after the best was measured: the dev split lost them, and on what is left the
    # new checkpoint is as good; a comparison of the raw pass@1 figures would call it a 25-point drop.
    gate = EvalGate(margin=0.05, alpha=0.05)
    best = _dev(10, 10)
    gate.observe("ckpt-0", 0.5, best)
    shrunk = {t: v for t, v in best.items() if t >= "t005"}
    d = gate.observe("ckpt-1", 5 / 15, shrunk)
    assert not d.rollback and not d.new_best and "15 tasks" in d.reason


def test_the_gate_state_keeps_the_best_checkpoints_dev_scores() -> None:
    gate = EvalGate(margin=0.0, alpha=0.05)
    gate.observe("ckpt-0", 0.5, _dev(1, 1))
    again = EvalGate.from_state(json.loads(json.dumps(gate.state())))
    assert again.best_tasks == {"t000": 1.0, "t001": 0.0} and again.alpha == 0.05
    assert again.history[-1]["tasks"] == tasks_digest(["t001", "t000"])


def test_margin_and_factor_out_of_range_are_refused() -> None:
    with pytest.raises(TrainingError, match="rollback_margin"):
        EvalGate(margin=1.5)
    with pytest.raises(TrainingError, match="rollback_alpha"):
        EvalGate(margin=0.05, alpha=0.0)
    with pytest.raises(TrainingError, match="lower_lr_on_rollback = 0"):
        lower_lr(object(), 0)


@pytest.mark.slow
def test_harmful_update_is_detected_and_rolled_back(tmp_path) -> None:
    from spade.config import ExecutorConfig, SamplingConfig, TrainingConfig
    from spade.evaluate import evaluate, load_suite
    from spade.policy.embedded import EmbeddedPolicy
    from spade.sandbox import SandboxPool
    from spade.train.checkpoint import best_checkpoint, load_checkpoint, save_checkpoint
    from spade.train.rft import RftTrainer

    training = TrainingConfig(lora_r=8, lora_alpha=16, lr=1e-4, batch_size=2, steps_per_update=3, epochs=0,
                              max_seq_len=256)
    policy = EmbeddedPolicy(SamplingConfig(threads=1, dtype="float32", max_new_tokens=96), training)
    trainer = RftTrainer(policy, training)
    trainer.prepare()  # LoRA starts as the identity: the base model's answers
    by_id = {t.task_id: t for t in load_suite("builtin")}
    tasks = [by_id[f"builtin/{name}"] for name in EVAL_TASKS]
    gate = EvalGate(margin=0.05)
    with SandboxPool(ExecutorConfig(workers=2)) as pool:
        def score():
            return evaluate(policy, pool, tasks, samples=1, temperature=0.0, ks=[1])

        before = score()
        assert before.pass_at_k[1] > 0, "the base model must pass at least one eval task for this test to mean much"
        best = save_checkpoint(tmp_path, 0, policy, trainer, best=True)
        assert gate.observe(best.name, before.pass_at_k[1]).new_best

        for group in trainer.optimizer.param_groups:
            group["lr"] = 1.0  # deliberately harmful: a huge step on nonsense targets
        junk = [(t, "zq " * 40) for t in tasks]
        trainer.train_on(junk, seed=1)
        save_checkpoint(tmp_path, 1, policy, trainer)
        after = score()
        decision = gate.observe("ckpt-00000001", after.pass_at_k[1])
        assert after.pass_at_k[1] < before.pass_at_k[1]
        assert decision.rollback and decision.best == best.name

        load_checkpoint(best_checkpoint(tmp_path), policy, trainer)
        restored = score()
    assert restored.pass_at_k == before.pass_at_k and restored.per_task == before.per_task
    assert lower_lr(trainer, 0.5) == pytest.approx(training.lr * 0.5)
