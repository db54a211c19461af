"""One real embedded model for the whole policy test session (loads from the safetensors cache in seconds).

Tests use one torch thread: on a 2-core machine shared with other jobs, two OpenMP threads that must meet at
every barrier were measured 15x slower than one. Override with SPADE_TEST_THREADS.
"""

import os

import pytest

from spade.config import SamplingConfig, TrainingConfig
from spade.records import Task, TestCase

THREADS = int(os.environ.get("SPADE_TEST_THREADS", "1"))


@pytest.fixture(scope="session")
def policy():
    from spade.policy.embedded import EmbeddedPolicy

    cfg = SamplingConfig(dtype="float32", max_new_tokens=24, batch_size=8, threads=THREADS)
    p = EmbeddedPolicy(cfg, TrainingConfig())
    p.model  # noqa: B018  (load now, so the first test is not charged for it)
    return p


@pytest.fixture(scope="session")
def easy_tasks():
    return [
        Task("add", "Return the sum of two integers.", "def add(a: int, b: int) -> int:", "add", 0.1,
             test_cases=(TestCase((1, 2), 3), TestCase((0, 0), 0))),
        Task("rev", "Return the string reversed.", "def rev(s: str) -> str:", "rev", 0.1,
             test_cases=(TestCase(("abc",), "cba"),)),
    ]
