"""What the loop asks of a trainer: one `update(UpdateBatch) -> UpdateResult`, plus the optimizer state checkpoints
save and the eval gate lowers. Trainers register by update method in spade.registry.TRAINERS (spade.train.methods).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from spade.records import Task, UpdateResult


@dataclass(frozen=True, slots=True)
class UpdateBatch:
    """What one update may train on, chosen by the loop's buffers (spade.train.buffer): this iteration's tasks
    (GRPO samples its own answers to them), passing examples (RFT) or preference pairs (DPO), and the seed."""

    seed: int
    iteration: int = 0  # names the candidates of rollouts the trainer generates itself
    tasks: tuple[Task, ...] = ()
    examples: tuple[Any, ...] = ()  # RFT: passing (task, completion) pairs or spade.train.rft.TrainExample
    pairs: tuple[Any, ...] = ()  # DPO: spade.train.dpo.PreferencePair (passing and failing answers to one task)


class Trainer(Protocol):
    """Updates a policy's model in place; `optimizer` and `updates` are saved and restored by spade.train.checkpoint."""

    optimizer: Any
    updates: int

    def prepare(self) -> None:
        """Build what training needs (LoRA wrap, optimizer) once; idempotent."""
        ...

    def update(self, batch: UpdateBatch) -> UpdateResult:
        """One update; an empty batch raises TrainingError (the loop skips instead of calling)."""
        ...
