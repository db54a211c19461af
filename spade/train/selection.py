"""What one policy update trains on, by update method (the loop's data step before `Trainer.update`).

In: this iteration's rollouts and tasks, the run store (earlier rollouts and tasks), the config, the update's seed.
Out: a `Selection`: the `UpdateBatch` (GRPO: this iteration's tasks; DPO: preference pairs; RFT and any other
method: passing examples, spade.train.buffer), or why there is nothing to train on; and the buffer's counts that
the update records (None: the trainer's own details stand).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from spade.config import SpadeConfig
from spade.records import Rollout, Task
from spade.train.base import UpdateBatch
from spade.train.buffer import Sample

if TYPE_CHECKING:
    from spade.store import RunStore


@dataclass(frozen=True, slots=True)
class Selection:
    batch: UpdateBatch | None  # None: nothing to train on (`skipped` says why)
    skipped: str = ""
    details: dict[str, int] | None = None


@dataclass(frozen=True, slots=True)
class Sources:
    """Where an update's data comes from."""

    rollouts: Sequence[Rollout]  # this iteration's, graded
    tasks: Sequence[Task]  # this iteration's
    store: RunStore  # the run's earlier rollouts, and tasks by id
    cfg: SpadeConfig
    seed: int
    iteration: int
    rationales: tuple[Sample, ...] = ()  # RFT: passing hinted answers (training.rationalize), for this update only


def select_batch(method: str, src: Sources) -> Selection:
    """The batch `method` (training.update_method) trains on."""
    return SELECTORS.get(method, rft)(src)


def grpo(src: Sources) -> Selection:
    """GRPO samples its own answers to this iteration's tasks (its graded rollouts are committed like the loop's)."""
    if not src.tasks:
        return Selection(None, "no tasks this iteration")
    return Selection(UpdateBatch(src.seed, src.iteration, tasks=tuple(src.tasks)))


def dpo(src: Sources) -> Selection:
    """(passing, failing) answers to one task: this iteration's first, then earlier ones."""
    from spade.train.buffer import dpo_buffer

    pairs, extra = dpo_buffer(src.rollouts, src.store, src.cfg.training, {t.task_id: t for t in src.tasks})
    if not pairs:
        return Selection(None, "no task with both passing and failing samples yet", extra)
    return Selection(UpdateBatch(src.seed, src.iteration, pairs=tuple(pairs)), details=extra)


def rft(src: Sources) -> Selection:
    """The verified buffer: this iteration's passing samples, then earlier ones (at least the replay share)."""
    from spade.train.buffer import rft_buffer
    from spade.train.rft import TrainExample

    tasks_by_id = {t.task_id: t for t in src.tasks}

    def task_of(task_id: str) -> Task:  # earlier tasks read from the store once each
        if task_id not in tasks_by_id:
            tasks_by_id[task_id] = src.store.task(task_id)
        return tasks_by_id[task_id]

    chosen, extra = rft_buffer(src.rollouts, src.store, src.cfg.training, src.cfg.evolution.replay_ratio,
                               src.rationales, lambda task_id: task_of(task_id).family or task_id)
    if not chosen:
        return Selection(None, "no passing samples yet", extra)
    examples = tuple(TrainExample(task_of(s.task_id), s.completion, s.prompt_variant) for s in chosen)
    return Selection(UpdateBatch(src.seed, src.iteration, examples=examples), details=extra)


SELECTORS: dict[str, Callable[[Sources], Selection]] = {"grpo": grpo, "dpo": dpo, "rft": rft}
