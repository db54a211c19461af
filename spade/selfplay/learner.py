"""Two learners: a generator with an adapter of its own proposes and learns from learnability alone.

Rule (selfplay.generator_learner): the generator is a second LoRA adapter on the same base, kept as a checkpoint
under RUN/generator_learner/ (its adapter and its own AdamW state, written atomically by
spade.train.checkpoint.save_checkpoint). It starts as the oldest kept checkpoint (the base, in practice) and, until one
is kept, the policy proposes with the weights it holds. Proposals are sampled with the generator's adapter swapped in
(spade.selfplay.past_solver.past_weights: tensors copied in place and back, the solver's adapter restored bit for
bit); every proposer_period solver updates the generator is trained, its adapter swapped in, on its proposals above
proposer_min_reward (RFT) with its own optimizer, and saved again. The solver's checkpoints never hold the
generator's training, and the generator's never the solver's: the two alternate on the slower period the write-up
asks for. LoRA adapters only (the swap's condition, spade.selfplay.past_solver.can_swap).

In: the run directory, the policy (its model made trainable by the solver's trainer), the training config. Out: the
generator's checkpoint path, and `GeneratorLearner` (the optimizer-holding trainer record that checkpoints save).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

LEARNER_DIR = "generator_learner"


@dataclass
class GeneratorLearner:
    """What spade.train.checkpoint saves for the generator: its AdamW and its update count (Trainer's fields)."""

    optimizer: Any = None
    updates: int = 0

    def prepare(self) -> None:
        """Nothing to build: the optimizer is made by `open_learner` over the policy's trainable parameters."""


def learner_checkpoint(run_dir: Path) -> Path | None:
    """The generator's checkpoint directory, when it has been trained at least once."""
    from spade.policy.weights import checkpoints

    found = checkpoints(run_dir / LEARNER_DIR)
    return found[-1] if found else None


def generator_weights(run_dir: Path, checkpoints_root: Path) -> Path | None:
    """Where the generator's adapter is read from: its own checkpoint, else the oldest kept checkpoint (its start),
    else None (no checkpoint yet: the policy proposes with what it holds)."""
    from spade.policy.weights import checkpoints

    own = learner_checkpoint(run_dir)
    if own is not None:
        return own
    kept = checkpoints(checkpoints_root)
    return kept[0] if kept else None


def open_learner(policy: Any, lr: float, run_dir: Path) -> GeneratorLearner:
    """The generator's optimizer over the policy's trainable parameters (the very tensors the swap writes), its
    state restored from the generator's checkpoint when there is one (a resumed run)."""
    import json

    import torch

    params = [p for p in policy.model.parameters() if p.requires_grad]
    learner = GeneratorLearner(torch.optim.AdamW(params, lr=lr, weight_decay=0.0))
    path = learner_checkpoint(run_dir)
    if path is not None and (path / "optimizer.pt").is_file():
        learner.optimizer.load_state_dict(torch.load(path / "optimizer.pt", weights_only=True))
        learner.updates = int(json.loads((path / "state.json").read_text()).get("updates", 0))
    return learner


def save_learner(run_dir: Path, policy: Any, learner: GeneratorLearner, iteration: int) -> Path:
    """The generator's adapter (swapped in now) and optimizer, written as RUN/generator_learner's one checkpoint."""
    from spade.train.checkpoint import prune, save_checkpoint

    root = run_dir / LEARNER_DIR
    path = save_checkpoint(root, learner.updates, policy, learner, extra={"iteration": iteration})
    prune(root, 1, best=path)
    return path


__all__ = ["LEARNER_DIR", "GeneratorLearner", "generator_weights", "learner_checkpoint", "open_learner",
           "save_learner"]
