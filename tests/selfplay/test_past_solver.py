"""A past solver plays: the oldest kept checkpoint other than the current weights is chosen, the policy samples
with that checkpoint's adapter inside the swap and holds its own adapter again, bit for bit, after it (a tiny
random Llama with a LoRA adapter stands in for the embedded model; its sampler is the one the loop uses)."""

from __future__ import annotations

from pathlib import Path

import pytest

from spade.config import SamplingConfig, TrainingConfig
from spade.records import Task, TestCase
from spade.selfplay.past_solver import can_swap, past_checkpoint, past_weights
from tests.policy.test_user_models import make_tiny_llama


def _adapter(policy):
    return {n: p.detach().clone() for n, p in policy.model.named_parameters() if "lora_" in n}


def _randomize(policy, seed: int) -> None:
    import torch

    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for n, p in policy.model.named_parameters():
            if "lora_" in n:
                p.copy_(torch.randn(p.shape, generator=g) * 2.0)


def test_the_oldest_kept_checkpoint_other_than_the_current_one_is_the_past_solver(tmp_path: Path) -> None:
    root = tmp_path / "checkpoints"
    assert past_checkpoint(root, tmp_path, None) is None  # nothing saved yet
    for step in (3, 7, 12):
        (root / f"ckpt-{step:08d}").mkdir(parents=True)
    (root / ".ckpt-00000001.tmp").mkdir()  # a save in progress is not a checkpoint
    assert past_checkpoint(root, tmp_path, "checkpoints/ckpt-00000012") == root / "ckpt-00000003"
    assert past_checkpoint(root, tmp_path, "checkpoints/ckpt-00000003") == root / "ckpt-00000007"
    for step in (7, 12):
        (root / f"ckpt-{step:08d}").rmdir()
    assert past_checkpoint(root, tmp_path, "checkpoints/ckpt-00000003") is None  # only the current one is kept


TASKS = [Task("add", "Return the sum of two integers.", "def add(a: int, b: int) -> int:", "add", 0.1,
              test_cases=(TestCase((1, 2), 3),)),
         Task("rev", "Return the string reversed.", "def rev(s: str) -> str:", "rev", 0.1,
              test_cases=(TestCase(("abc",), "cba"),))]


def test_the_policy_samples_with_the_past_adapter_and_gets_its_own_back(tmp_path: Path) -> None:
    from spade.policy.embedded import EmbeddedPolicy
    from spade.train.rft import with_lora

    training = TrainingConfig(model=str(make_tiny_llama(tmp_path / "tiny-llama")), lora_r=4)
    policy = EmbeddedPolicy(SamplingConfig(dtype="float32", max_new_tokens=8, threads=1), training)
    assert "no LoRA adapter" in (can_swap(policy) or "")  # a full model: its master weights would not survive
    policy.model = with_lora(policy.model, training, seed=0)
    assert can_swap(policy) is None
    _randomize(policy, 1)
    past = tmp_path / "checkpoints" / "ckpt-00000000"
    policy.model.save_pretrained(str(past / "adapter"))
    past_adapter = _adapter(policy)
    _randomize(policy, 2)
    now_adapter = _adapter(policy)
    tasks = TASKS
    now = [[c.text for c in outs] for outs in policy.sample(tasks, 1, temperature=0.0, seed=0)]

    with past_weights(policy, past):
        inside = _adapter(policy)
        then = [[c.text for c in outs] for outs in policy.sample(tasks, 1, temperature=0.0, seed=0)]
    assert all((inside[n] == past_adapter[n]).all() for n in past_adapter)
    assert then != now  # the sampler followed the swap (it rebuilds its copy when the weights change)
    after = _adapter(policy)
    assert all((after[n] == now_adapter[n]).all() for n in now_adapter)
    assert [[c.text for c in outs] for outs in policy.sample(tasks, 1, temperature=0.0, seed=0)] == now

    with pytest.raises(RuntimeError), past_weights(policy, past):  # a failure inside the swap restores too
        raise RuntimeError("sampling failed")
    after = _adapter(policy)
    assert all((after[n] == now_adapter[n]).all() for n in now_adapter)
