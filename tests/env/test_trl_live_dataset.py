"""The live dataset under TRL's default shuffling: `shuffle(seed=...)` (what GRPOTrainer calls when
shuffle_dataset=True) must not read ahead of the trainer. A buffered shuffle would draw, validate and store a
thousand tasks at today's difficulty before the first step; the live one draws only what is read."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("datasets")

from spade.config import load_config
from spade.env import Environment
from spade.env.trl import device_args, live_dataset
from spade.store import RunStore

FAMILY = "list_transform"
MAX_DRAWS = 4


class CountingEnvironment(Environment):
    """The real environment; a draw past MAX_DRAWS raises, so a read-ahead shows as an error, not a long stall."""

    draws = 0

    def draw(self, count: int | None = None) -> Any:
        type(self).draws += 1
        if type(self).draws > MAX_DRAWS:
            raise RuntimeError(f"draw {type(self).draws}: the dataset read ahead of what the trainer consumed")
        return super().draw(count)


def test_a_shuffled_live_dataset_draws_only_what_is_read(tmp_path: Path) -> None:
    cfg = load_config(None, {"generation.families": [FAMILY], "executor.workers": 1, "evolution.replay_ratio": 0.0})
    env = CountingEnvironment(tmp_path / "run", cfg)
    CountingEnvironment.draws = 0
    shuffled = live_dataset(env, draw_size=2).shuffle(seed=3)
    rows = list(itertools.islice(iter(shuffled), 3))  # two draws of 2 tasks
    env.close()
    assert len(rows) == 3 and CountingEnvironment.draws == 2
    assert {"prompt", "task_id", "ground_truth", "prompt_variant"} <= set(rows[0])
    assert len({r["task_id"] for r in rows}) == 3
    # Shuffling reorders within a draw only: the first two rows are the first draw's two tasks, in some order.
    with RunStore(tmp_path / "run", read_only=True) as store:
        first_draw = {r[0] for r in store.query("SELECT task_id FROM tasks ORDER BY rowid LIMIT 2")}
    assert {rows[0]["task_id"], rows[1]["task_id"]} == first_draw
    assert isinstance(shuffled, type(live_dataset(env)))  # the shuffled stream is still live (shuffle again is lazy)


def test_device_args_fit_this_cpu_host() -> None:
    import torch

    args = device_args()
    if torch.cuda.is_available():  # pragma: no cover - GPU hosts
        assert args["use_cpu"] is False
    else:
        assert args == {"use_cpu": True, "bf16": False, "fp16": False}
        from trl import GRPOConfig

        GRPOConfig(output_dir="unused", report_to=[], **args)  # TRL accepts it on this host (its bf16 default does not)
