"""Rolling back after the eval gate's verdict: restore the best checkpoint's weights and optimizer, lower the learning
rate, and save the result as the iteration's checkpoint, so a resume continues from exactly what the loop holds.

In: the checkpoints root, the best checkpoint's name, the policy and its Trainer. Out: the new checkpoint's path and
the learning rate now in force.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from spade.train.base import Trainer
from spade.train.checkpoint import load_checkpoint, save_checkpoint
from spade.train.gate import lower_lr


def roll_back(root: Path, best: str, step: int, policy: Any, trainer: Trainer, lr_factor: float,
              iteration: int) -> tuple[Path, float]:
    """Load `best`, multiply the learning rate by `lr_factor`, save as checkpoint `step`."""
    load_checkpoint(root / best, policy, trainer)
    lr = lower_lr(trainer, lr_factor)
    path = save_checkpoint(root, step, policy, trainer, extra={"iteration": iteration})
    return path, lr
