"""A real RFT update: changes the LoRA weights of the very model that samples, and lowers its training loss; with
training.kl_beta it stays nearer the base model."""

import pytest

from spade.errors import TrainingError
from spade.train.rft import RftTrainer, TrainExample, UpdateStats

from .conftest import ADD, TRAINING


def test_update_lowers_the_loss_on_its_own_training_batch(trained):
    _, _, _, stats = trained
    assert isinstance(stats, UpdateStats)
    assert stats.examples == 4 and stats.steps == TRAINING.steps_per_update
    assert stats.loss_last < stats.loss_first


def test_update_trains_lora_weights_in_place_on_the_sampling_model(trained):
    from peft import PeftModel

    policy, trainer, _, _ = trained
    assert isinstance(policy.model, PeftModel)
    lora_b = [p for n, p in policy.model.named_parameters() if "lora_B" in n]
    assert lora_b and any(float(p.detach().abs().max()) > 0 for p in lora_b)  # peft starts lora_B at zero
    assert all(p.requires_grad for p in lora_b)
    base = [p for n, p in policy.model.named_parameters() if "lora_" not in n]
    assert not any(p.requires_grad for p in base)
    optimised = {id(p) for g in trainer.optimizer.param_groups for p in g["params"]}
    assert {id(p) for p in lora_b} <= optimised


def test_trained_policy_samples_differently_from_the_base_model(trained):
    policy, _, base, _ = trained
    after = [c.text for cs in policy.sample([ADD, ADD], 1, temperature=0) for c in cs]
    assert after[0] != base[0]
    assert "spade" in after[0]  # the marker comment it was trained on


def test_the_lora_adapter_starts_from_the_seed_whatever_torchs_global_generator_holds(make_policy):
    import torch

    def initial_adapter(global_seed, seed):
        torch.manual_seed(global_seed)  # as if in another process: its generator starts elsewhere
        before = torch.get_rng_state()
        policy = make_policy()
        RftTrainer(policy, TRAINING, seed=seed).prepare()
        assert torch.equal(torch.get_rng_state(), before)  # the global generator is left as it was
        return {n: p.detach().clone() for n, p in policy.model.named_parameters() if "lora_A" in n}

    with torch.random.fork_rng(devices=[]):
        first, other_process, other_seed = initial_adapter(1, 0), initial_adapter(2, 0), initial_adapter(1, 7)
    assert first and first.keys() == other_process.keys()
    assert all(torch.equal(first[k], other_process[k]) for k in first)
    assert not any(torch.equal(first[k], other_seed[k]) for k in first)


def test_no_examples_is_a_training_error(trained):
    _, trainer, _, _ = trained
    with pytest.raises(TrainingError, match="no passing examples"):
        trainer.train_on([])


def test_prompt_longer_than_max_seq_len_is_a_training_error(make_policy):
    policy = make_policy()
    trainer = RftTrainer(policy, TRAINING.model_copy(update={"max_seq_len": 32}))
    with pytest.raises(TrainingError, match="max_seq_len = 32"):
        trainer.train_on([TrainExample(ADD, "def add(a, b):\n    return a + b\n```")])


def test_training_target_is_the_extracted_code_closed_by_a_fence(trained):
    policy, _, _, _ = trained
    target = policy.training_target(ADD, "def add(a, b):\n    return a + b\n```\nIt adds.\nprint(add(1, 2))")
    assert target == "def add(a, b):\n    return a + b\n```"


def test_epochs_set_the_steps_of_an_update_from_the_buffer_size():
    from spade.config import TrainingConfig
    from spade.train.rft import update_steps

    assert update_steps(40, TrainingConfig(steps_per_update=4, epochs=0, batch_size=8)) == 4  # epochs 0: steps_per_update
    assert update_steps(40, TrainingConfig(epochs=2, batch_size=8)) == 10
    assert update_steps(41, TrainingConfig(epochs=2, batch_size=8)) == 11  # a partial last batch is a step
    assert update_steps(3, TrainingConfig(epochs=2, batch_size=8)) == 2  # a batch is never larger than the buffer
    assert update_steps(5, TrainingConfig(epochs=0.5, batch_size=8)) == 1


def test_an_epoch_based_update_runs_that_many_steps_of_full_batches(make_policy, monkeypatch):

    policy = make_policy()
    trainer = RftTrainer(policy, TRAINING.model_copy(update={"epochs": 2.0, "batch_size": 2}))
    examples = [TrainExample(ADD, f"```python\ndef add(a, b):\n    return a + b  # {k}\n```") for k in range(3)]
    seen = []
    real = trainer._backward
    monkeypatch.setattr(trainer, "_backward",
                        lambda batch, base, *scale: seen.append(len(batch)) or real(batch, base, *scale))
    stats = trainer.train_on(examples)
    assert stats.steps == 3 and seen == [2, 2, 2]  # ceil(2 x 3 / 2)


def _padded_batch_loss():
    """bench/update.py's baseline: the loss as one padded batch computes it (transformers' own, full logits)."""
    from tests.bench_scripts import bench_script

    return bench_script("update").padded_batch_loss


def test_one_example_at_a_time_gives_the_padded_batchs_loss_and_gradient(trained, examples):
    """The update computes each example unpadded, with logits only where they predict a completion token, and
    accumulates: the loss and the gradient must be those of the padded batch (examples of unequal length, a
    trained adapter so the KL term is not zero), on the first epoch and on a later one, which takes the base's
    logits from the decoder outputs kept in the first."""
    import torch

    from spade.train.rft import BaseLogits

    policy, _, _, _ = trained
    trainer = RftTrainer(policy, TRAINING.model_copy(update={"kl_beta": 0.5}))
    trainer.prepare()  # the trained LoRA model: adapters already on
    encoded = [trainer._encode(TrainExample(t, c)) for t, c in examples]
    assert len({len(ids) for ids, _ in encoded}) > 1  # padding happens in the batch
    lora = [p for n, p in policy.model.named_parameters() if p.requires_grad]

    def loss_and_grad(compute):
        policy.model.zero_grad(set_to_none=True)
        loss = compute()
        return loss, torch.cat([p.grad.flatten() for p in lora])

    def padded():
        loss = _padded_batch_loss()(policy.model, encoded, policy.tokenizer.pad_token_id, 0.5)
        loss.backward()
        return float(loss.detach())

    base = BaseLogits(policy.model)
    try:
        policy.model.train()
        first, first_grad = loss_and_grad(lambda: trainer._backward(encoded, base))
        assert base.split is True and len(base.hidden) == len(encoded)
        again, again_grad = loss_and_grad(lambda: trainer._backward(encoded, base))
        theirs, theirs_grad = loss_and_grad(padded)
    finally:
        policy.model.zero_grad(set_to_none=True)
        policy.model.eval()
    assert float(theirs_grad.norm()) > 0
    for ours, ours_grad in ((first, first_grad), (again, again_grad)):
        assert ours == pytest.approx(theirs, rel=1e-4)
        assert float((ours_grad - theirs_grad).norm()) <= 1e-3 * float(theirs_grad.norm())


def _kl_now(policy, trainer, examples) -> float:
    """The KL term of the update's loss, measured on `examples` without training."""
    import torch

    from spade.train.rft import BaseLogits, TrainExample, example_terms, scored_tokens

    encoded = [trainer._encode(TrainExample(t, c)) for t, c in examples]
    base = BaseLogits(policy.model)
    with torch.no_grad():
        kl = sum(float(example_terms(policy.model, ids, labels, base)[1]) for ids, labels in encoded)
    return kl / sum(scored_tokens(labels) for _, labels in encoded)


@pytest.mark.slow  # two model loads and two updates
def test_kl_beta_holds_an_update_near_the_base_model(make_policy, examples):
    from spade.train.rft import RftTrainer

    drift = {}
    for beta in (0.0, 5.0):
        policy = make_policy()
        trainer = RftTrainer(policy, TRAINING.model_copy(update={"kl_beta": beta}), seed=0)
        trainer.prepare()
        assert _kl_now(policy, trainer, examples) == pytest.approx(0.0, abs=1e-6)  # LoRA starts as the base
        trainer.train_on(examples, seed=0)
        drift[beta] = _kl_now(policy, trainer, examples)
        assert list(policy.model.peft_config) == ["default"] and not policy.model.training
    assert drift[0.0] > 0.05  # plain RFT moves away from the base on what it trains on ...
    assert drift[5.0] < 0.5 * drift[0.0]  # ... and the KL term holds it nearer


def test_kl_beta_needs_rft_with_lora():
    from spade.config import load_config
    from spade.errors import ConfigError

    assert load_config(None, {"training.kl_beta": 0.1}).training.kl_weight == 0.1
    # auto (the default): the anchor for RFT with LoRA, off for the methods and full fine-tunes it cannot serve
    assert load_config(None).training.kl_beta == "auto" and load_config(None).training.kl_weight == 0.5
    for other in ({"training.update_method": "dpo"}, {"training.update_method": "grpo"}, {"training.lora_r": 0}):
        assert load_config(None, other).training.kl_weight == 0.0
    assert load_config(None, {"training.kl_beta": 0}).training.kl_weight == 0.0
    with pytest.raises(ConfigError, match=r"training.kl_beta = 0.1 needs update_method 'rft' with LoRA"):
        load_config(None, {"training.kl_beta": 0.1, "training.update_method": "dpo"})


def test_answers_from_the_generator_need_rft():
    from spade.config import load_config
    from spade.errors import ConfigError

    # references: auto / off / unsolved / all; true and false (YAML's on / off too) read as unsolved / off
    for given, read in ((True, "unsolved"), (False, "off"), ("all", "all"), ("unsolved", "unsolved")):
        assert load_config(None, {"training.references": given}).training.reference_mode == read
    # auto (the default): every sampled task's reference for RFT, none for the methods without RFT's buffer
    assert load_config(None).training.references == "auto" and load_config(None).training.reference_mode == "all"
    for method in ("dpo", "grpo"):
        assert load_config(None, {"training.update_method": method}).training.reference_mode == "off"
    assert load_config(None, {"training.references": False, "training.update_method": "dpo"}).training.references == "off"
    with pytest.raises(ConfigError, match=r"training.references.*'auto', 'off', 'unsolved' or 'all'"):
        load_config(None, {"training.references": "some"})
    for key, value, shown in (("references", True, "'unsolved'"), ("references", "all", "'all'"),
                              ("rationalize", True, "True")):
        with pytest.raises(ConfigError, match=rf"training.{key} = {shown} adds answers to RFT's buffer, but "
                                              r"update_method = 'dpo' has none. Set update_method to 'rft'"):
            load_config(None, {f"training.{key}": value, "training.update_method": "dpo"})
    with pytest.raises(ConfigError, match="lora_r = 0"):
        load_config(None, {"training.kl_beta": 0.1, "training.lora_r": 0})


def test_lora_layers_adapts_only_the_top_layers_and_the_sampler_samples_them(make_policy, examples):
    """training.lora_layers: adapters on the last N decoder layers only; the update trains them, the layers below
    keep no adapter (the backward stops above them), and the static sampler samples the trained model."""
    import torch

    from spade.policy.prompts import build_prompt
    from spade.policy.static_decode import StaticDecoder
    from spade.policy.stops import closed_after_code

    policy = make_policy()
    trainer = RftTrainer(policy, TRAINING.model_copy(update={"lora_layers": 2}))
    trainer.train_on(examples, seed=0)
    layers = policy.model.config.num_hidden_layers
    adapted = {int(n.split(".layers.")[1].split(".")[0]) for n, _ in policy.model.named_parameters() if "lora_B" in n}
    assert adapted == {layers - 2, layers - 1}
    assert all(float(p.detach().abs().max()) > 0 for n, p in policy.model.named_parameters() if "lora_B" in n)
    decoder = StaticDecoder(policy.model, policy.tokenizer, closed_after_code)
    snapshot = decoder.weights().layers
    assert [k for k, layer in enumerate(snapshot) if layer.qkv.lora_a is not None] == [layers - 2, layers - 1]
    prompt = build_prompt(ADD)
    text = policy.tokenizer.apply_chat_template(list(prompt.messages), tokenize=False, add_generation_prompt=True)
    text += prompt.prefill
    enc = policy.tokenizer([text], return_tensors="pt", add_special_tokens=False)
    with torch.no_grad():
        reference = policy.model(**enc).logits[:, -1, :].float()
    torch.testing.assert_close(decoder.last_logits([text]).float(), reference, atol=2e-3, rtol=1e-4)


def test_the_base_outputs_of_the_kl_term_are_kept_across_updates_and_dropped_when_the_base_changes(
        make_policy, examples):
    """A replayed example's base forward was run again in every update; it is kept now (the base is frozen), gives
    exactly the logits a fresh forward gives, and is dropped when a frozen weight is written."""
    import torch

    from spade.train.rft import BaseLogits, TrainExample

    policy = make_policy()
    trainer = RftTrainer(policy, TRAINING.model_copy(update={"kl_beta": 0.5, "epochs": 1.0}), seed=0)
    trainer.train_on(examples, seed=0)
    base = trainer.base
    assert base is not None and base.hits == 0 and len(base.hidden) == len(examples)
    trainer.train_on(examples, seed=1)
    assert trainer.base is base and base.hits == len(examples)  # the second update ran no base forward
    ids, labels = trainer._encode(TrainExample(*examples[0]))
    row = torch.tensor([ids])
    keep = torch.nonzero(torch.tensor(labels[1:]) != -100).squeeze(1)
    with trainer._autocast():
        kept, fresh = base.logits(row, keep), BaseLogits(policy.model, trainer.prefix).logits(row, keep)
    assert torch.equal(kept, fresh)
    frozen = next(p for p in policy.model.parameters() if not p.requires_grad)
    with torch.no_grad():
        frozen.mul_(1.0)  # written in place: same values, but the kept outputs can no longer be trusted
    base.check()
    assert not base.hidden and base.positions == 0
