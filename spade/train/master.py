"""AdamW with float32 master weights, for a full fine-tune of a model held in bfloat16.

In: the model's trainable parameters (bfloat16, the weights the sampler reads). Out: an optimizer whose steps
accumulate in float32 copies and write each result back, rounded, into the model's parameters. Without it a
bfloat16 weight keeps 8 bits of mantissa, so an AdamW step smaller than 1/256 of the weight (most of them at
lr 5e-4) rounds away and the full fine-tune barely moves. The optimizer is a torch AdamW over the float32 copies,
so trainers that drive torch optimizers (SPADE's RFT, TRL's DPO and GRPO through transformers' Trainer, its
schedulers and gradient clipping on the model's gradients) use it unchanged. A parameter written by anything else
(a checkpoint or rollback loading weights) is seen by its version counter, and its float32 copy is taken again
from it before the next step. `state_dict` carries the float32 copies, so a resumed run continues from them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

MASTER_KEY = "float32_master"


class MasterAdamW(torch.optim.AdamW):
    """AdamW stepping float32 copies of `params` and writing them back (see the module)."""

    def __init__(self, params: Sequence[torch.nn.Parameter], lr: float, weight_decay: float = 0.0) -> None:
        self.model_params = list(params)
        masters = [p.detach().to(torch.float32).clone().requires_grad_(True) for p in self.model_params]
        super().__init__(masters, lr=lr, weight_decay=weight_decay)
        self.masters = masters
        self._versions = [p._version for p in self.model_params]

    @torch.no_grad()
    def step(self, closure: Any = None) -> Any:  # type: ignore[override]
        for p, m, version in zip(self.model_params, self.masters, self._versions):
            if p._version != version:  # written outside this optimizer (weights loaded): follow it
                m.copy_(p)
            m.grad = None if p.grad is None else p.grad.to(torch.float32)
        loss = super().step(closure)
        for k, (p, m) in enumerate(zip(self.model_params, self.masters)):
            p.copy_(m)
            m.grad = None
            self._versions[k] = p._version
        return loss

    def zero_grad(self, set_to_none: bool = True) -> None:
        super().zero_grad(set_to_none)
        for p in self.model_params:
            if set_to_none:
                p.grad = None
            elif p.grad is not None:
                p.grad.zero_()

    def state_dict(self) -> dict[str, Any]:
        state = super().state_dict()
        state[MASTER_KEY] = [m.detach().clone() for m in self.masters]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        state = dict(state_dict)
        saved = state.pop(MASTER_KEY, None)
        super().load_state_dict(state)
        with torch.no_grad():
            for k, (p, m) in enumerate(zip(self.model_params, self.masters)):
                # A checkpoint without float32 copies (written before them): take them from the loaded weights.
                m.copy_(saved[k] if saved is not None and saved[k].shape == m.shape else p)
                self._versions[k] = p._version


def needs_master(params: Sequence[torch.nn.Parameter]) -> bool:
    """A full fine-tune whose weights are below float32 precision."""
    return any(p.dtype in (torch.bfloat16, torch.float16) for p in params)


__all__ = ["MasterAdamW", "needs_master"]
