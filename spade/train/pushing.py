"""A trainer whose every update is followed by pushing the new LoRA adapter to the inference server that samples
the policy (`spade.policy.served.ServedPolicy.push`). Everything else (optimizer, update count, prepare) is the
wrapped trainer's, read and written through, so checkpoints save and restore it unchanged."""

from __future__ import annotations

from typing import Any

from spade.records import UpdateResult
from spade.train.base import Trainer, UpdateBatch


class PushingTrainer:
    def __init__(self, inner: Trainer, policy: Any) -> None:
        object.__setattr__(self, "_inner", inner)
        object.__setattr__(self, "_policy", policy)

    def update(self, batch: UpdateBatch) -> UpdateResult:
        result = self._inner.update(batch)
        self._policy.push()
        return result

    def __getattr__(self, name: str) -> Any:
        return getattr(object.__getattribute__(self, "_inner"), name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._inner, name, value)
