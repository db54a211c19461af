"""In-loop DPO through TRL on the real embedded model: it prefers the passing sample over the failing one after an
update, trains the sampling model's own adapter in place, and leaves no reference adapter behind."""

import pytest

from spade.errors import TrainingError
from spade.train.dpo import DpoUpdater, PreferencePair

from .conftest import ADD, MUL, TRAINING

GOOD_ADD = "def add(a, b):\n    return a + b\n```"
BAD_ADD = "def add(a, b):\n    return a - b\n```"
PAIRS = [PreferencePair(ADD, GOOD_ADD, BAD_ADD),
         PreferencePair(MUL, "def mul(a, b):\n    return a * b\n```", "def mul(a, b):\n    return a ** b\n```")]


def margin(trainer, policy):
    """log p(chosen) - log p(rejected) summed over the completion tokens of the first pair."""
    import torch

    tok = policy.tokenizer
    row = trainer.rows(PAIRS[:1])[0]
    prompt = tok(row["prompt"], add_special_tokens=False)["input_ids"]
    out = []
    for side in ("chosen", "rejected"):
        ids = prompt + tok(row[side], add_special_tokens=False)["input_ids"]
        with torch.no_grad():
            logits = policy.model(input_ids=torch.tensor([ids])).logits[0, :-1].float()
        logp = torch.log_softmax(logits, -1)[torch.arange(len(ids) - 1), torch.tensor(ids[1:])]
        out.append(float(logp[len(prompt) - 1:].sum()))
    return out[0] - out[1]


@pytest.mark.slow
def test_a_dpo_update_raises_the_passing_samples_margin_and_keeps_one_trainable_adapter(make_policy):
    policy = make_policy()
    trainer = DpoUpdater(policy, TRAINING.model_copy(update={"steps_per_update": 3, "batch_size": 2}))
    trainer.prepare()
    before = margin(trainer, policy)
    stats = trainer.train_on(PAIRS)
    assert stats.steps == 3 and stats.examples == 2
    assert stats.loss_last < stats.loss_first  # starts at log 2: the reference is the policy itself
    assert margin(trainer, policy) > before + 0.5
    assert list(policy.model.peft_config) == ["default"]
    trainable = [n for n, p in policy.model.named_parameters() if p.requires_grad]
    assert trainable and all("lora_" in n and ".default." in n for n in trainable)
    optimised = {id(p) for g in trainer.optimizer.param_groups for p in g["params"]}
    assert {id(p) for p in policy.model.parameters() if p.requires_grad} <= optimised
    trainer.train_on(PAIRS)  # a second update makes (and drops) its reference adapter again
    assert list(policy.model.peft_config) == ["default"]


def test_dpo_rows_are_the_rendered_prompt_and_each_sides_training_target(make_policy):
    policy = make_policy()
    rows = DpoUpdater(policy, TRAINING).rows([PreferencePair(ADD, GOOD_ADD + "\nThis adds.", "I cannot", 1)])
    assert rows == [{"prompt": policy.prompt_text(ADD, 1), "chosen": "def add(a, b):\n    return a + b\n```",
                     "rejected": "I cannot"}]


def test_no_pairs_is_a_training_error(make_policy):
    with pytest.raises(TrainingError, match="no preference pairs"):
        DpoUpdater(make_policy(), TRAINING).train_on([])
