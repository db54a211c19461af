"""GRPO through TRL on the real model: rewards come from the real sandbox and the LoRA weights move."""

from __future__ import annotations

import itertools

import pytest

from spade.config import ExecutorConfig, RewardConfig, SamplingConfig, TrainingConfig
from spade.errors import TrainingError
from spade.records import ExecResult
from spade.train.grpo import GrpoUpdater

from .conftest import ADD, MUL

TRAINING = TrainingConfig(lora_r=8, lora_alpha=16, lr=1e-3, batch_size=4, grpo_generations=2, steps_per_update=2)
SAMPLING = SamplingConfig(threads=1, dtype="float32", max_new_tokens=32, temperature=1.0)


def test_batch_size_must_hold_whole_groups() -> None:
    with pytest.raises(TrainingError, match="multiple of training.grpo_generations = 4"):
        GrpoUpdater(object(), TRAINING.model_copy(update={"batch_size": 6, "grpo_generations": 4}), None,
                    RewardConfig(), lambda: ADD, SAMPLING)


@pytest.mark.slow
def test_grpo_steps_score_in_the_sandbox_and_change_the_lora_weights(tmp_path) -> None:
    from spade.policy.embedded import EmbeddedPolicy
    from spade.sandbox import SandboxPool
    from spade.train.checkpoint import save_checkpoint

    policy = EmbeddedPolicy(SAMPLING, TRAINING)
    tasks = itertools.cycle([ADD, MUL])
    with SandboxPool(ExecutorConfig(workers=2)) as pool:
        updater = GrpoUpdater(policy, TRAINING, pool, RewardConfig(), lambda: next(tasks))
        updater.prepare()
        before = {n: p.detach().clone() for n, p in policy.model.named_parameters() if "lora_" in n}
        stats = updater.run(seed=3)
    rollouts = updater.reward.rollouts
    assert stats.steps == 2 and stats.examples == len(rollouts) == 2 * TRAINING.batch_size
    assert {r.task_id for r in rollouts} == {"add", "mul"}
    assert all(isinstance(r.result, ExecResult) and r.result.tests for r in rollouts)
    assert stats.mean_reward == pytest.approx(sum(r.reward.total for r in rollouts) / len(rollouts))
    groups = [rollouts[i : i + 2] for i in range(0, len(rollouts), 2)]
    assert any(a.reward.total != b.reward.total for a, b in groups), "no group had a reward difference to learn from"
    after = dict(policy.model.named_parameters())
    assert any(not after[n].detach().equal(v) for n, v in before.items())
    # The stream is read as TRL needs prompts (two per step here), not buffered ahead by a shuffle.
    assert updater.drawn <= 2 * 2 + 3
    # The updater stands in for RftTrainer in checkpoints (prepare, optimizer, updates).
    path = save_checkpoint(tmp_path, 1, policy, updater)
    assert (path / "adapter" / "adapter_config.json").is_file() and (path / "optimizer.pt").is_file()


@pytest.mark.slow
def test_with_a_kl_term_one_update_follows_another_and_only_the_trained_adapter_is_left() -> None:
    """grpo_beta > 0: TRL adds a frozen 'ref' copy of the adapter per trainer; a second update used to fail with
    "Adapter with name 'ref' already exists" (every loop run with a KL term died at its second update)."""
    from spade.policy.embedded import EmbeddedPolicy
    from spade.sandbox import SandboxPool

    training = TRAINING.model_copy(update={"grpo_beta": 0.04, "steps_per_update": 1})
    policy = EmbeddedPolicy(SAMPLING, training)
    tasks = itertools.cycle([ADD, MUL])
    with SandboxPool(ExecutorConfig(workers=2)) as pool:
        updater = GrpoUpdater(policy, training, pool, RewardConfig(), lambda: next(tasks))
        for seed in (1, 2):
            stats = updater.run(seed=seed)
            assert stats.steps == 1 and list(policy.model.peft_config) == ["default"]
            assert policy.model.active_adapter == "default"
    assert updater.updates == 2
