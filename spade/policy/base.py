"""What every policy backend offers the loop, the evaluator and the environment: n completions per task.

Backends (spade.policy.backends, chosen by sampling.backend) implement `Policy`; the embedded one is also trainable
(spade.train.rft.TrainablePolicy).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from spade.records import Completion, Task


class Policy(Protocol):
    """Samples answers. `name` identifies the model in the audit trail; `last_tokens_per_s` the last call's speed."""

    @property
    def name(self) -> str: ...

    last_tokens_per_s: float

    def sample(self, tasks: Sequence[Task], n: int, *, temperature: float | None = None, seed: int = 0,
               on_progress: Callable[[int, int], None] | None = None) -> list[list[Completion]]:
        """n completions per task, in task order; temperature 0 is greedy, None the config's."""
        ...
