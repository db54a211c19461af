"""A real run database with real rollouts: two builtin tasks, answers scored in the real sandbox and rewarded."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from spade.config import ExecutorConfig, RewardConfig
from spade.evaluate import load_suite
from spade.records import Candidate
from spade.rollout import Grader
from spade.store import IterationTask, IterationWrite, RunStore

BY_ID = {t.task_id: t for t in load_suite("builtin")}
SUM_EVENS, COUNT_VOWELS = BY_ID["builtin/sum_evens"], BY_ID["builtin/count_vowels"]

# (task, completion as sampled after the prefilled fence, code the extractor took)
ANSWERS = [
    (SUM_EVENS, "def sum_evens(nums):\n    return sum(n for n in nums if n % 2 == 0)\n```\nDone.",
     "def sum_evens(nums):\n    return sum(n for n in nums if n % 2 == 0)\n"),
    (SUM_EVENS, "def sum_evens(nums):\n    return sum(nums)\n```", "def sum_evens(nums):\n    return sum(nums)\n"),
    (SUM_EVENS, "I cannot do that.", ""),
    (COUNT_VOWELS, "def count_vowels(s):\n    return sum(c in 'aeiou' for c in s)\n```",
     "def count_vowels(s):\n    return sum(c in 'aeiou' for c in s)\n"),
]


@pytest.fixture(scope="session")
def pool() -> Iterator[object]:
    from spade.sandbox import SandboxPool

    with SandboxPool(ExecutorConfig(workers=2)) as p:
        yield p


@pytest.fixture(scope="session")
def run_dir(tmp_path_factory: pytest.TempPathFactory, pool) -> Path:
    path = tmp_path_factory.mktemp("run")
    w = IterationWrite(iteration=0)
    w.tasks = [IterationTask(SUM_EVENS, "generated"), IterationTask(COUNT_VOWELS, "generated")]
    cands = [Candidate(f"{task.task_id}:0:{k}", task.task_id, completion, code, "test", "hash", k % 3, 10)
             for k, (task, completion, code) in enumerate(ANSWERS)]
    w.rollouts = Grader(pool, RewardConfig()).grade_candidates([task for task, _, _ in ANSWERS], cands)
    with RunStore(path, create=True) as store:
        store.commit_iteration(w)
    return path
