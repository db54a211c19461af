import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Small enough for CI, big enough that every stage does real work: 3 tasks x 2 samples per iteration,
# a real LoRA step each iteration, greedy eval on 4 fixed tasks.
SMALL_RUN = """
evolution: {coevolve_every: 2, window: 8, patience: 1}
generation: {tasks_per_iteration: 3}
sampling: {sampling_n: 2, max_new_tokens: 48, batch_size: 8}
training: {batch_size: 2, steps_per_update: 1, epochs: 0, max_examples: 4, max_seq_len: 256}
eval: {limit: 4}
executor: {workers: 2}
"""


@pytest.fixture
def small_config(tmp_path: Path) -> Path:
    path = tmp_path / "small.yaml"
    path.write_text(SMALL_RUN)
    return path


def spade(*args: str, **kw) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.run([sys.executable, "-m", "spade", *args], capture_output=True, text=True, cwd=ROOT,
                          env=env, **kw)
