"""Checkpoints restore identical logits, optimizer state and RNG; pruning keeps the newest and the best."""

import random

import pytest

from spade.errors import TrainingError
from spade.policy.model_files import resolve_dtype
from spade.train.checkpoint import (
    best_checkpoint,
    checkpoint_name,
    latest_checkpoint,
    load_checkpoint,
    mark_best,
    prune,
    save_checkpoint,
)
from spade.train.rft import RftTrainer

from .conftest import ADD, MUL, SAMPLING, TRAINING


def _logits(policy):
    import torch

    ids = policy.tokenizer(policy.prompt_text(ADD, 0), return_tensors="pt").input_ids
    with torch.no_grad():
        return policy.model(ids).logits


def _optimizer_tensors(trainer):
    state = trainer.optimizer.state_dict()["state"]
    return {(k, name): v.clone() for k, s in state.items() for name, v in s.items() if hasattr(v, "clone")}


def test_round_trip_restores_logits_optimizer_and_rng(trained, examples, make_policy, tmp_path):
    import torch

    policy, trainer, _, _ = trained
    random.seed(11)
    torch.manual_seed(11)
    path = save_checkpoint(tmp_path, 1, policy, trainer, {"difficulty": {"arith": 0.4}}, best=True)
    logits, opt = _logits(policy), _optimizer_tensors(trainer)
    expected_random, expected_torch = random.random(), torch.rand(3)

    fresh = make_policy()  # a new process would start from the base model like this
    fresh_trainer = RftTrainer(fresh, TRAINING)
    extra = load_checkpoint(path, fresh, fresh_trainer)

    assert extra == {"difficulty": {"arith": 0.4}}
    assert torch.equal(_logits(fresh), logits)
    restored = _optimizer_tensors(fresh_trainer)
    assert restored.keys() == opt.keys() and all(torch.equal(restored[k], opt[k]) for k in opt)
    assert random.random() == expected_random and torch.equal(torch.rand(3), expected_torch)
    assert best_checkpoint(tmp_path) == path and latest_checkpoint(tmp_path) == path


def test_adapter_loaded_for_sampling_reproduces_the_trained_outputs(trained, make_policy, tmp_path):
    policy, trainer, base, _ = trained
    path = save_checkpoint(tmp_path, 2, policy, trainer)
    sampler = make_policy()
    sampler.load_adapter(path / "adapter")
    texts = [c.text for cs in sampler.sample([ADD], 1, temperature=0) for c in cs]
    assert texts[0] == policy.sample([ADD], 1, temperature=0)[0][0].text
    assert texts[0] != base[0]


def _weights(policy):
    return {name: t.detach().clone() for name, t in policy.model.state_dict().items()}


@pytest.mark.parametrize("dtype", [
    pytest.param("float32", marks=pytest.mark.slow),  # the default dtype on this machine type is bfloat16
    pytest.param("bfloat16", marks=pytest.mark.skipif(
        resolve_dtype("auto") != "bfloat16",
        reason="this CPU has no native bfloat16 (avx512_bf16 / amx_bf16), so sampling.dtype auto never picks it")),
])
def test_a_resumed_run_samples_the_tokens_of_the_uninterrupted_run(dtype, examples, tmp_path):
    """What tests/pipeline/test_resume.py checks end to end, in-process: three policies standing for three processes
    (each with its own state of torch's global generator): one updates and samples from memory; one updates and
    saves a checkpoint; one restores that checkpoint and samples. Weights, optimizer state and tokens agree."""
    import torch

    from spade.policy.embedded import EmbeddedPolicy

    sampling = SAMPLING.model_copy(update={"dtype": dtype})
    training = TRAINING.model_copy(update={"steps_per_update": 2, "batch_size": 2})

    def process(global_seed):
        torch.manual_seed(global_seed)  # processes start torch's generator in different places
        policy = EmbeddedPolicy(sampling, training)
        return policy, RftTrainer(policy, training, seed=0)

    def samples(policy):
        sampled = policy.sample([ADD, MUL], 3, seed=5)
        greedy = policy.sample([ADD, MUL], 1, temperature=0)
        return [[c.text for c in cs] for cs in (*sampled, *greedy)]

    with torch.random.fork_rng(devices=[]):
        straight, trainer = process(1)
        trainer.train_on(examples, seed=3)
        weights, opt, expected = _weights(straight), _optimizer_tensors(trainer), samples(straight)
        del straight, trainer
        killed, trainer = process(2)
        trainer.train_on(examples, seed=3)
        path = save_checkpoint(tmp_path, 1, killed, trainer)
        del killed, trainer
        resumed, trainer = process(3)
        load_checkpoint(path, resumed, trainer)
        restored = _weights(resumed)

        assert resumed.model.dtype == getattr(torch, dtype)
        assert {k: v.dtype for k, v in restored.items()} == {k: v.dtype for k, v in weights.items()}
        assert [k for k in weights if not torch.equal(restored[k], weights[k])] == []
        restored_opt = _optimizer_tensors(trainer)
        assert restored_opt.keys() == opt.keys() and all(torch.equal(restored_opt[k], opt[k]) for k in opt)
        assert samples(resumed) == expected


def test_no_half_checkpoint_is_left_when_saving_fails(tmp_path):
    class Broken:
        optimizer = None
        def prepare(self):
            raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        save_checkpoint(tmp_path, 3, object(), Broken())  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []


def test_loading_a_directory_without_state_is_a_training_error(tmp_path, trained):
    policy, trainer, _, _ = trained
    with pytest.raises(TrainingError, match="state.json"):
        load_checkpoint(tmp_path, policy, trainer)


def test_prune_keeps_the_newest_and_the_best(tmp_path):
    for step in range(1, 7):
        (tmp_path / checkpoint_name(step)).mkdir()
    mark_best(tmp_path, checkpoint_name(2))
    removed = prune(tmp_path, keep=2)
    left = sorted(p.name for p in tmp_path.iterdir() if p.is_dir())
    assert left == [checkpoint_name(2), checkpoint_name(5), checkpoint_name(6)]
    assert sorted(p.name for p in removed) == [checkpoint_name(s) for s in (1, 3, 4)]


def test_prune_with_an_explicit_best_and_keep_zero(tmp_path):
    for step in (1, 2, 3):
        (tmp_path / checkpoint_name(step)).mkdir()
    prune(tmp_path, keep=0, best=tmp_path / checkpoint_name(1))
    assert [p.name for p in tmp_path.iterdir()] == [checkpoint_name(1)]
