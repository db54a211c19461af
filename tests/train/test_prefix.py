"""The frozen bottom layers of a top-layer LoRA model are run once per example and kept: the logits, the loss and
its gradient are those of the full forward, the kept states serve later epochs and updates, and they are dropped
when the bottom's weights change."""

import pytest

from spade.train.prefix import FrozenPrefix
from spade.train.rft import BaseLogits, RftTrainer, TrainExample

from .conftest import TRAINING


def _row(policy, trainer, example):
    import torch

    ids, labels = trainer._encode(TrainExample(*example))
    targets = torch.tensor(labels)
    return torch.tensor([ids]), torch.nonzero(targets[1:] != -100).squeeze(1)


def test_the_prefix_starts_at_the_first_adapted_layer_and_gives_the_full_forwards_logits(trained, examples):
    import torch

    policy, trainer, _, _ = trained
    layers = policy.model.get_base_model().config.num_hidden_layers
    prefix = FrozenPrefix.build(policy.model)
    assert prefix is not None and prefix.start == layers - TRAINING.lora_layers > 0
    row, keep = _row(policy, trainer, examples[0])
    with torch.no_grad():
        full = policy.model(input_ids=row, logits_to_keep=keep, use_cache=False).logits[0]
        ours = prefix.logits(row, keep)
        with policy.model.disable_adapter():
            full_base = policy.model(input_ids=row, logits_to_keep=keep, use_cache=False).logits[0]
            ours_base = prefix.logits(row, keep)
    assert not torch.allclose(full, full_base, atol=1e-3)  # the trained adapters matter on these positions
    assert torch.allclose(ours, full, atol=1e-4) and torch.allclose(ours_base, full_base, atol=1e-4)
    assert len(prefix.kept) == 1 and prefix.hits == 1  # the base's forward reused the policy's bottom
    assert len(policy.model.get_base_model().model.layers) == layers  # the layer list is whole again


def test_an_update_through_the_prefix_has_the_full_forwards_loss_and_gradient(trained, examples):
    import torch

    policy, _, _, _ = trained
    trainer = RftTrainer(policy, TRAINING.model_copy(update={"kl_beta": 0.5}))
    trainer.prepare()
    encoded = [trainer._encode(TrainExample(t, c)) for t, c in examples]
    lora = [p for p in policy.model.parameters() if p.requires_grad]

    def loss_and_grad(prefix):
        policy.model.zero_grad(set_to_none=True)
        trainer.prefix = prefix
        loss = trainer._backward(encoded, BaseLogits(policy.model, prefix))
        return loss, torch.cat([p.grad.flatten() for p in lora])

    prefix = FrozenPrefix.build(policy.model)
    try:
        policy.model.train()
        full, full_grad = loss_and_grad(None)
        ours, ours_grad = loss_and_grad(prefix)
        again, again_grad = loss_and_grad(prefix)  # every bottom from the kept states
    finally:
        trainer.prefix = None
        policy.model.zero_grad(set_to_none=True)
        policy.model.eval()
    assert prefix is not None and len(prefix.kept) == len(encoded) and prefix.hits >= 2 * len(encoded)
    assert float(full_grad.norm()) > 0
    for loss, grad in ((ours, ours_grad), (again, again_grad)):
        assert loss == pytest.approx(full, rel=1e-5)
        assert float((grad - full_grad).norm()) <= 1e-4 * float(full_grad.norm())


def test_the_trainer_keeps_the_states_across_updates_and_drops_them_when_the_bottom_changes(make_policy, examples):
    import torch

    policy = make_policy()
    trainer = RftTrainer(policy, TRAINING.model_copy(update={"steps_per_update": 2}))
    trainer.train_on(examples, seed=0)
    prefix = trainer.prefix
    assert prefix is not None and len(prefix.kept) == len({t.task_id + c for t, c in examples})
    hits = prefix.hits
    trainer.train_on(examples, seed=1)
    assert trainer.prefix is prefix and prefix.hits >= hits + 2 * TRAINING.batch_size  # no bottom ran again
    bottom = next(iter(prefix.decoder.layers[0].parameters()))
    with torch.no_grad():
        bottom.mul_(1.0)  # written in place: its version moves
    prefix.check()
    assert not prefix.kept and prefix.tokens == 0


def test_the_oldest_states_go_first_past_the_bound(trained, examples):
    policy, trainer, _, _ = trained
    rows = [_row(policy, trainer, e)[0] for e in examples[:3]]
    prefix = FrozenPrefix.build(policy.model, max_tokens=rows[1].shape[1] + rows[2].shape[1])
    for row in rows:
        prefix.hidden(row)
    assert [len(k) for k in prefix.kept] == [rows[1].shape[1], rows[2].shape[1]]
    assert prefix.tokens == sum(len(k) for k in prefix.kept)


def test_no_prefix_when_every_layer_trains(make_policy):
    policy = make_policy()
    RftTrainer(policy, TRAINING.model_copy(update={"lora_layers": 0})).prepare()
    assert FrozenPrefix.build(policy.model) is None
    assert FrozenPrefix.build(make_policy().model) is None  # not a peft model
