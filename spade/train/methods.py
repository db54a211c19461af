"""The built-in update methods that train the policy in the loop (spade.registry.TRAINERS, chosen by
training.update_method): name -> a function (config, policy, pool) -> Trainer (spade.train.base). The other
methods (sft_export, dpo_export, none) collect data only and build no trainer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from spade.registry import TRAINERS

if TYPE_CHECKING:
    from spade.config import SpadeConfig
    from spade.train.base import Trainer


def rft(cfg: SpadeConfig, policy: Any, pool: Any) -> Trainer:
    """Rejection-sampling fine-tuning (LoRA) on passing samples (spade.train.rft)."""
    from spade.train.rft import RftTrainer

    return pushing(RftTrainer(policy, cfg.training, seed=cfg.run.seed), policy)


def grpo(cfg: SpadeConfig, policy: Any, pool: Any) -> Trainer:
    """Online GRPO through TRL's GRPOTrainer, graded in the sandbox (spade.train.grpo)."""
    from spade.train.grpo import GrpoUpdater

    return pushing(GrpoUpdater(policy, cfg.training, pool, cfg.reward, sampling=cfg.sampling, seed=cfg.run.seed),
                   policy)


def dpo(cfg: SpadeConfig, policy: Any, pool: Any) -> Trainer:
    """DPO through TRL's DPOTrainer on (passing, failing) answers to one task (spade.train.dpo)."""
    from spade.train.dpo import DpoUpdater

    return pushing(DpoUpdater(policy, cfg.training, seed=cfg.run.seed), policy)


def pushing(trainer: Trainer, policy: Any) -> Trainer:
    """The trainer itself, or for a policy sampled on a server that reloads adapters (spade.policy.served) the
    trainer with each update followed by a push of the new adapter."""
    if not hasattr(policy, "push"):
        return trainer
    from spade.train.pushing import PushingTrainer

    return PushingTrainer(trainer, policy)  # type: ignore[return-value]


TRAINERS.register("rft", rft)
TRAINERS.register("grpo", grpo)
TRAINERS.register("dpo", dpo)
