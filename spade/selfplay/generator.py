"""Two copies: a frozen copy of the policy proposes, refreshed to the policy's weights every K solver updates.

Rule (docs/selfplay.md): with selfplay.generator_refresh = K > 0 the proposer's samples come from the weights of
one checkpoint, copied to RUN/generator/ when the copy is taken; once K solver updates have been committed since,
the copy is taken again from the policy's latest checkpoint. Generator and solver so alternate: the solver learns
for K updates against a generator that holds still, then the generator catches up (its proposer-role training
included, which the policy's weights carry). Before any checkpoint exists, and for a policy that cannot swap
adapters (spade.selfplay.past_solver.can_swap), the policy proposes with its own weights. A copy lost in a crash is
taken again from the latest checkpoint.

In: the run directory, a checkpoint (relative to it) and the count of solver updates. Out: a `GeneratorCopy`
record (what the copy holds) and the copy on disk, written atomically (a temporary directory renamed into place).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spade.policy.weights import ADAPTER

COPY_DIR = "generator"


@dataclass(frozen=True, slots=True)
class GeneratorCopy:
    checkpoint: str  # relative to the run directory: the weights the copy holds
    updates: int  # solver updates committed when it was taken

    def to_dict(self) -> dict[str, Any]:
        return {"checkpoint": self.checkpoint, "updates": self.updates}

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> GeneratorCopy | None:
        return cls(str(data["checkpoint"]), int(data["updates"])) if data else None


def refresh_due(copy: GeneratorCopy | None, updates: int, every: int) -> bool:
    """Whether the copy is to be taken (again): none yet, or `every` solver updates committed since it was."""
    return copy is None or updates - copy.updates >= every


def take_copy(run_dir: Path, checkpoint: str, updates: int) -> GeneratorCopy:
    """Copy `checkpoint`'s adapter to run_dir/generator, replacing the copy held before."""
    tmp, old, dest = run_dir / f".{COPY_DIR}.tmp", run_dir / f".{COPY_DIR}.old", run_dir / COPY_DIR
    for stale in (tmp, old):
        shutil.rmtree(stale, ignore_errors=True)
    shutil.copytree(run_dir / checkpoint / ADAPTER, tmp / ADAPTER)
    if dest.exists():
        dest.rename(old)
    tmp.rename(dest)
    shutil.rmtree(old, ignore_errors=True)
    return GeneratorCopy(checkpoint, updates)


__all__ = ["COPY_DIR", "GeneratorCopy", "refresh_due", "take_copy"]
