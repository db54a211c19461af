"""SPADE's live curriculum inside verl (0.9.1): a dataset class for verl's custom dataset hook.

In: verl's `create_rl_dataset` call `(data_files=, tokenizer=, processor=, config=data config, max_samples=)`, made
twice by its trainer from the same class: once with `data.train_files`, once with `data.val_files`. The run
directory comes from `+data.spade_run_dir=RUN_DIR` (or env SPADE_RUN_DIR).
Out, training (`data_files` is `data.train_files`): rows in the shape of verl's RLHFDataset (`raw_prompt` chat
messages, `data_source`, `ability`, `reward_model.ground_truth`, `extra_info`, `index`, ...) drawn live from the
environment, so later batches come at the difficulty the controller holds by then. Each row's `extra_info` names
the run, the task and its step group (the `train_batch_size` rows of one dataloader batch times
`actor_rollout_ref.rollout.n` samples each): `spade.export.reward_fn.compute_score` grades every answer at once and
reports a group to the run as one committed iteration when its last answer is graded (`spade.env.groups`).
Out, validation (`data_files` is `data.val_files`): a fixed, bounded set from the run's `eval.suite` (at most
`+data.spade_val_size`, default 64, or `data.val_max_samples`), graded on their ground truth and never reported,
so validation answers stay out of the controller.
verl: `data.custom_cls.path=spade/env/verl.py data.custom_cls.name=SpadeDataset +data.spade_run_dir=RUN_DIR`, plus
`reward.custom_reward_function.path=spade/export/reward_fn.py reward.custom_reward_function.name=compute_score`
(docs/integrations.md; tests/env/test_verl_integration.py drives verl's own code with it).
"""

from __future__ import annotations

import os
import threading
import uuid
from typing import Any

from spade.env.environment import RUN_DIR_KEY, Drawn, Environment
from spade.env.groups import GROUP_KEY, GROUP_SIZE_KEY
from spade.errors import ConfigError
from spade.groundtruth import DATA_SOURCE, ground_truth
from spade.records import Task

DEFAULT_SIZE = 100_000  # verl sizes its schedule from len(dataset); a live stream has no natural length
DEFAULT_VAL_SIZE = 64

try:  # verl requires a torch Dataset subclass; the light install has no torch and never imports this file
    from torch.utils.data import Dataset as _Base
except ImportError:  # pragma: no cover - exercised only without torch
    _Base = object  # type: ignore[assignment,misc]


class SpadeDataset(_Base):  # type: ignore[misc,valid-type]
    """A verl RL dataset on a SPADE run: live rows for training, a fixed held-out set for validation."""

    def __init__(self, data_files: Any = None, tokenizer: Any = None, config: Any = None, processor: Any = None,
                 max_samples: int = -1) -> None:
        get = config.get if config is not None else (lambda _k, d=None: d)
        run_dir = get(RUN_DIR_KEY, None) or os.environ.get("SPADE_RUN_DIR")
        if not run_dir:
            raise ConfigError("SpadeDataset needs the SPADE run directory: pass +data.spade_run_dir=RUN_DIR to verl "
                              "or set SPADE_RUN_DIR")
        self.env = Environment.open(str(run_dir))
        self.validation = _is_validation(data_files, get)
        limit = int(max_samples) if max_samples and int(max_samples) > 0 else 0
        self._lock = threading.Lock()
        self._rows: dict[int, Drawn] = {}
        self._buffer: list[Drawn] = []
        if self.validation:
            self.tasks = _validation_tasks(self.env, limit or int(get("spade_val_size", DEFAULT_VAL_SIZE)))
            self.size = len(self.tasks)
            return
        self.size = limit or int(get("spade_size", DEFAULT_SIZE))
        self.draw_size = get("spade_draw_size", None)
        self.batch = int(get("gen_batch_size", None) or get("train_batch_size", None) or 1)
        self.group_size = self.batch * _rollout_n(config, get)
        self._served = 0
        self._pid = -1
        self._token = ""

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: int) -> dict[str, Any]:
        if self.validation:
            task = self.tasks[index]
            return _row(task, DATA_SOURCE, [dict(m) for m in _messages(task)], index,
                        {"index": index, "task_id": task.task_id, "split": "val"})
        with self._lock:
            drawn = self._rows.get(index)
            if drawn is None:
                if not self._buffer:
                    self._buffer = self.env.draw_some(self.draw_size)
                drawn = self._rows[index] = self._buffer.pop(0)
            group = self._group()
        info = {"index": index, "task_id": drawn.task.task_id, "split": "train", RUN_DIR_KEY: str(self.env.run_dir),
                GROUP_KEY: group, GROUP_SIZE_KEY: self.group_size}
        return _row(drawn.task, DATA_SOURCE, drawn.messages(), index, info)

    def _group(self) -> str:
        """This row's step group: every `batch` consecutive rows fetched in one process (a dataloader worker builds
        whole batches). Keyed by a per-process token, so workers and restarts never share a group."""
        if self._pid != os.getpid():
            self._pid, self._token, self._served = os.getpid(), uuid.uuid4().hex[:12], 0
        group = f"{self._token}-{self._served // self.batch}"
        self._served += 1
        return group


def _row(task: Task, data_source: str, messages: list[dict[str, str]], index: int, info: dict[str, Any]
         ) -> dict[str, Any]:
    import torch

    return {
        "raw_prompt": messages,
        "data_source": data_source,
        "ability": "code",
        "reward_model": {"style": "rule", "ground_truth": ground_truth(task)},
        "extra_info": info,
        "index": index,
        "dummy_tensor": torch.tensor([0], dtype=torch.uint8),
        "tools_kwargs": {},
        "interaction_kwargs": {},
    }


def _messages(task: Task) -> list[dict[str, str]]:
    from spade.policy.prompts import build_prompt

    return [dict(m) for m in build_prompt(task).messages]


def _files(value: Any) -> tuple[str, ...]:
    """verl's train_files / val_files: one path or a list of them (OmegaConf's ListConfig included)."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    return tuple(str(v) for v in value)


def _is_validation(data_files: Any, get: Any) -> bool:
    """verl builds both datasets from this class and tells them apart only by the files it passes."""
    files, train, val = _files(data_files), _files(get("train_files", None)), _files(get("val_files", None))
    if files and train == val and files == val:
        raise ConfigError(f"data.train_files and data.val_files are both {list(val)}: SpadeDataset tells the live "
                          "training set from the validation set by them; give data.val_files another value "
                          "(e.g. data.val_files=spade-val)")
    return bool(files) and files == val


def _rollout_n(config: Any, get: Any) -> int:
    """Samples per prompt: `+data.spade_rollout_n`, else verl's `actor_rollout_ref.rollout.n` read from the root of
    the config the data section belongs to."""
    explicit = get("spade_rollout_n", None)
    if explicit is not None:
        return _positive("spade_rollout_n", explicit)
    root = getattr(config, "_get_root", None)
    if root is not None:
        try:
            return _positive("actor_rollout_ref.rollout.n", root().actor_rollout_ref.rollout.n)
        except AttributeError:
            pass
    raise ConfigError("SpadeDataset cannot see actor_rollout_ref.rollout.n (it groups each step's samples into one "
                      "iteration); pass +data.spade_rollout_n=N with the same N")


def _positive(name: str, value: Any) -> int:
    try:
        n = int(value)
    except (TypeError, ValueError):
        n = 0
    if n < 1:
        raise ConfigError(f"{name} = {value!r}: SpadeDataset needs a positive number of samples per prompt")
    return n


def _validation_tasks(env: Environment, size: int) -> list[Task]:
    """The first `size` tasks of the run's eval.suite: the same set at every validation."""
    from spade.evaluate.suites import load_suite

    if size < 1:
        raise ConfigError(f"spade_val_size = {size}: the validation set needs at least 1 task")
    suite = env.config.eval.suite
    tasks = load_suite(suite)[:size]
    if not tasks:
        raise ConfigError(f"eval.suite = {suite!r} holds no task for verl's validation set; name another suite")
    return tasks
