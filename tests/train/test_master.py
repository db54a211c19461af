"""Float32 master weights for a full fine-tune in bfloat16: steps that bfloat16 rounds away accumulate; weights
written from outside are followed; a checkpoint carries the float32 copies. The last test runs a real full
fine-tune of the embedded model in bfloat16 through RftTrainer."""

from __future__ import annotations

import pytest
import torch

from spade.train.master import MASTER_KEY, MasterAdamW


def _layer(seed: int = 0) -> torch.nn.Linear:
    torch.manual_seed(seed)
    layer = torch.nn.Linear(16, 16).to(torch.bfloat16)
    with torch.no_grad():
        layer.weight.fill_(1.0)
    return layer


def _steps(layer: torch.nn.Linear, opt: torch.optim.Optimizer, n: int) -> None:
    x = torch.ones(4, 16, dtype=torch.bfloat16)
    for _ in range(n):
        opt.zero_grad(set_to_none=True)
        layer(x).sum().backward()
        opt.step()


def test_small_steps_that_bfloat16_rounds_away_accumulate_in_float32():
    plain, master = _layer(), _layer()
    _steps(plain, torch.optim.AdamW(plain.parameters(), lr=1e-4, weight_decay=0.0), 40)
    opt = MasterAdamW(list(master.parameters()), lr=1e-4)
    _steps(master, opt, 40)
    assert torch.all(plain.weight == 1.0)  # each step (~1e-4) is below half a bfloat16 ulp of 1.0: all lost
    assert float(master.weight.detach().float().mean()) < 1.0 - 3e-3  # 40 steps of ~1e-4 each, kept
    assert master.weight.dtype == torch.bfloat16 and opt.masters[0].dtype == torch.float32
    assert torch.equal(master.weight, opt.masters[0].to(torch.bfloat16))


def test_weights_written_from_outside_are_followed_and_a_checkpoint_keeps_the_float32_copies():
    layer = _layer()
    opt = MasterAdamW(list(layer.parameters()), lr=1e-4)
    _steps(layer, opt, 5)
    with torch.no_grad():
        layer.weight.fill_(2.0)  # e.g. a rollback loading other weights
    _steps(layer, opt, 1)
    assert abs(float(layer.weight.detach().float().mean()) - 2.0) < 0.05
    saved = opt.state_dict()
    assert MASTER_KEY in saved
    other = _layer(1)
    restored = MasterAdamW(list(other.parameters()), lr=1e-4)
    with torch.no_grad():
        for p, q in zip(other.parameters(), layer.parameters()):
            p.copy_(q)
    restored.load_state_dict(saved)
    assert all(torch.equal(a, b) for a, b in zip(restored.masters, opt.masters))
    _steps(layer, opt, 3)
    _steps(other, restored, 3)
    assert torch.equal(layer.weight, other.weight)


@pytest.mark.parametrize("dtype, master", [("bfloat16", True), ("float32", False)])
def test_a_full_fine_tune_of_the_embedded_model_steps_float32_copies_in_bfloat16(dtype, master, examples):
    from spade.config import SamplingConfig
    from spade.policy.embedded import EmbeddedPolicy
    from spade.train.rft import RftTrainer

    from .conftest import THREADS, TRAINING

    config = TRAINING.model_copy(update={"lora_r": 0, "steps_per_update": 1, "batch_size": 1, "lr": 1e-5})
    policy = EmbeddedPolicy(SamplingConfig(dtype=dtype, max_new_tokens=8, threads=THREADS), config)
    trainer = RftTrainer(policy, config)
    trainer.prepare()
    assert isinstance(trainer.optimizer, MasterAdamW) is master
    if not master:
        return
    name, param = next((n, p) for n, p in policy.model.named_parameters() if "layers.0.mlp.down_proj" in n)
    before = param.detach().clone()
    trainer.train_on(examples[:1], seed=0)
    kept = dict(zip((n for n, _ in policy.model.named_parameters()), trainer.optimizer.masters))[name]
    assert not torch.equal(kept, before.float())  # lr 1e-5: bfloat16 alone would have kept most weights as they were
    assert torch.equal(param.detach(), kept.to(torch.bfloat16))
