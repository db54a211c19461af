"""SPADE's live curriculum inside verl: a dataset class for verl's custom dataset hook.

In: verl's constructor call `(data_files, tokenizer, config, processor=None, max_samples=-1)` with the run
directory in the data config (`+data.spade_run_dir=RUN_DIR`) or env SPADE_RUN_DIR. Out: rows in the shape verl's
own RLHFDataset returns (its 2026 source): `raw_prompt` chat messages, `data_source`, `ability`, `reward_model`,
`extra_info` (with the task id and run directory, so `spade.export.reward_fn.compute_score[_batch]` reports each
graded answer back to the environment and the controller moves), `index`, `dummy_tensor`, `tools_kwargs`,
`interaction_kwargs`. Each new index draws from the environment (in chunks), so later batches come at the
difficulty the controller holds by then; an index asked again returns the same task.
verl: `data.custom_cls.path=spade/env/verl.py data.custom_cls.name=SpadeDataset`, plus the reward function above.
Written from verl's source, not run against verl here (verl's pins clash with this environment's).
"""

from __future__ import annotations

import os
import threading
from typing import Any

from spade.env.environment import RUN_DIR_KEY, Drawn, Environment
from spade.errors import ConfigError
from spade.groundtruth import DATA_SOURCE, ground_truth

DEFAULT_SIZE = 100_000  # verl sizes its schedule from len(dataset); a live stream has no natural length

try:  # verl requires a torch Dataset subclass; the light install has no torch and never imports this file
    from torch.utils.data import Dataset as _Base
except ImportError:  # pragma: no cover - exercised only without torch
    _Base = object  # type: ignore[assignment,misc]


class SpadeDataset(_Base):  # type: ignore[misc,valid-type]
    """A verl RL dataset whose rows are drawn live from a SPADE environment."""

    def __init__(self, data_files: Any = None, tokenizer: Any = None, config: Any = None, processor: Any = None,
                 max_samples: int = -1) -> None:
        get = config.get if config is not None else (lambda _k, d=None: d)
        run_dir = get(RUN_DIR_KEY, None) or os.environ.get("SPADE_RUN_DIR")
        if not run_dir:
            raise ConfigError("SpadeDataset needs the SPADE run directory: pass +data.spade_run_dir=RUN_DIR to verl "
                              "or set SPADE_RUN_DIR")
        self.env = Environment.open(str(run_dir))
        self.size = int(max_samples) if max_samples and max_samples > 0 else int(get("spade_size", DEFAULT_SIZE))
        self.draw_size = get("spade_draw_size", None)
        self._rows: dict[int, Drawn] = {}
        self._buffer: list[Drawn] = []
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: int) -> dict[str, Any]:
        import torch

        with self._lock:
            drawn = self._rows.get(index)
            if drawn is None:
                if not self._buffer:
                    self._buffer = self.env.draw_some(self.draw_size)
                drawn = self._rows[index] = self._buffer.pop(0)
        task = drawn.task
        return {
            "raw_prompt": drawn.messages(),
            "data_source": DATA_SOURCE,
            "ability": "code",
            "reward_model": {"style": "rule", "ground_truth": ground_truth(task)},
            "extra_info": {"index": index, "task_id": task.task_id, RUN_DIR_KEY: str(self.env.run_dir)},
            "index": index,
            "dummy_tensor": torch.tensor([0], dtype=torch.uint8),
            "tools_kwargs": {},
            "interaction_kwargs": {},
        }
