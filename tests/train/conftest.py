"""A real embedded model and a small RFT set-up shared by the training tests (one torch thread; see
tests/policy/conftest.py for why). Training is real: LoRA on the real model, a few steps on tiny examples."""

import os

import pytest

from spade.config import SamplingConfig, TrainingConfig
from spade.records import Task, TestCase

THREADS = int(os.environ.get("SPADE_TEST_THREADS", "1"))
SAMPLING = SamplingConfig(dtype="float32", max_new_tokens=24, batch_size=8, threads=THREADS)
# Plain RFT (no KL anchor, which the default turns on): a few steps that must visibly move the model.
TRAINING = TrainingConfig(lora_r=8, lora_alpha=16, lr=3e-3, steps_per_update=4, epochs=0, batch_size=4,
                          max_seq_len=192, kl_beta=0)

ADD = Task("add", "Return the sum of two integers.", "def add(a: int, b: int) -> int:", "add", 0.1,
           test_cases=(TestCase((1, 2), 3),))
MUL = Task("mul", "Return the product of two integers.", "def mul(a: int, b: int) -> int:", "mul", 0.1,
           test_cases=(TestCase((2, 3), 6),))


@pytest.fixture(scope="session")
def examples():
    """Passing completions as sampled (after the prefilled fence), with the prose the model adds."""
    return [
        (ADD, "def add(a: int, b: int) -> int:\n    # spade: sum\n    return b + a\n```\nThis adds."),
        (MUL, "def mul(a: int, b: int) -> int:\n    # spade: product\n    return b * a\n```"),
        (ADD, "def add(a, b):\n    # spade: sum\n    return b + a\n"),
        (MUL, "def mul(a, b):\n    # spade: product\n    return b * a\n```\n\nprint(mul(2, 3))"),
    ]


@pytest.fixture(scope="session")
def make_policy():
    from spade.policy.embedded import EmbeddedPolicy

    def make():
        p = EmbeddedPolicy(SAMPLING, TRAINING)
        p.model  # noqa: B018  (loads the weights)
        return p

    return make


@pytest.fixture(scope="session")
def trained(make_policy, examples):
    """(policy, trainer, base greedy texts, first UpdateStats) after one real update."""
    from spade.train.rft import RftTrainer

    policy = make_policy()
    base = [c.text for cs in policy.sample([ADD, MUL], 1, temperature=0) for c in cs]
    trainer = RftTrainer(policy, TRAINING)
    stats = trainer.train_on(examples, seed=0)
    return policy, trainer, base, stats
