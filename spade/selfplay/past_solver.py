"""Past solvers estimate a new task's difficulty: a saved checkpoint attempts the iteration's new tasks.

Rule (documented in docs/selfplay.md): in an iteration that consults the league, when selfplay.past_solver_samples >
0, the oldest checkpoint kept on disk other than the weights the policy holds now (the "past solver") answers each
new task of the iteration (admitted proposals and fresh procedural tasks; not league or replayed ones)
past_solver_samples times at the solver's temperature; its answers are graded on the one grading path and never
stored as rollouts (no update trains on them). Its solve rate r gives the task's difficulty estimate 1 - r; the task
is then stored, observed by the controller and rewarded at the claimed level and that estimate weighted as
selfplay.past_solver_prior answers and the past solver's (`calibrated`), both recorded in the audit (`past_solver`); after the current solver's rollouts the iteration records the gain over the past
solver on the same tasks. Only an embedded policy holding LoRA adapters plays a past solver: the swap copies adapter
tensors in place and back, which a full fine-tune's float32 master weights (spade.train.master) would not survive
exactly.

In: the checkpoint root, the current checkpoint (relative to the run dir) and the policy. Out: the past
checkpoint's directory, or the policy's weights swapped for the duration of a `with` block.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from spade.policy.weights import checkpoints, load_weights


def past_checkpoint(root: Path, run_dir: Path, current: str | None) -> Path | None:
    """The oldest checkpoint under `root` that is not `current` (a path relative to `run_dir`), or None."""
    here = (run_dir / current).resolve() if current else None
    for path in checkpoints(root):
        if path.resolve() != here:
            return path
    return None


def calibrated(claimed: float, rate: float, answers: int, prior: float) -> float:
    """The difficulty a task is used at once a past solver answered it: the claimed level counted as `prior`
    answers beside the past solver's `answers` at 1 - `rate` (its solve rate), rounded to 4 places."""
    if answers <= 0 and prior <= 0:
        return round(claimed, 4)
    return round((prior * claimed + answers * (1.0 - rate)) / (prior + answers), 4)


def can_swap(policy: Any) -> str | None:
    """None when `policy` can play a past solver; otherwise why not (one line)."""
    from spade.policy.embedded import EmbeddedPolicy

    if not isinstance(policy, EmbeddedPolicy):
        return "only the embedded policy swaps weights"
    if not _adapter(policy.model):
        return "the policy holds no LoRA adapter (a full fine-tune's master weights would not survive the swap)"
    return None


def _adapter(model: Any) -> dict[str, Any]:
    return {name: p for name, p in model.named_parameters() if "lora_" in name}


@contextmanager
def past_weights(policy: Any, path: Path) -> Iterator[None]:
    """The policy holds the adapter of checkpoint `path` inside the block and its own adapter, bit for bit, after
    (written in place, so an optimizer holding the parameters stays valid and the sampler sees each change)."""
    import torch

    model = policy.model
    params, training = _adapter(model), model.training
    saved = {name: p.detach().clone() for name, p in params.items()}
    try:
        load_weights(path, policy)
        yield
    finally:
        with torch.no_grad():
            for name, p in params.items():
                p.copy_(saved[name])
        model.train(training)


__all__ = ["can_swap", "past_checkpoint", "past_weights"]
