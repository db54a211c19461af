"""A checkpoint's weights as a policy reads them, without a trainer: the layout training writes
(<root>/ckpt-<step>/ with adapter/ or weights.safetensors, <root>/best.json), best and latest lookup, and loading.

In: a checkpoint root or directory and a policy (EmbeddedPolicy). Out: the directory, or the policy's model holding
those weights. spade.train.checkpoint writes this layout and restores optimizer and RNG state on top.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from spade.errors import TrainingError

PREFIX = "ckpt-"
BEST_FILE = "best.json"
ADAPTER = "adapter"
WEIGHTS = "weights.safetensors"


def checkpoints(root: Path) -> list[Path]:
    """The checkpoint directories under `root`, oldest first."""
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.is_dir() and p.name.startswith(PREFIX))


def latest_checkpoint(root: str | Path) -> Path | None:
    found = checkpoints(Path(root))
    return found[-1] if found else None


def best_checkpoint(root: str | Path) -> Path | None:
    marker = Path(root) / BEST_FILE
    if not marker.is_file():
        return None
    candidate = Path(root) / json.loads(marker.read_text())["best"]
    return candidate if candidate.is_dir() else None


def load_weights(path: str | Path, policy: Any) -> None:
    """Put the weights saved in checkpoint `path` (or a bare adapter directory) into `policy`'s model."""
    path = Path(path)
    if (path / "adapter_config.json").is_file():
        policy.load_adapter(path)
    elif (path / ADAPTER).is_dir():
        policy.load_adapter(path / ADAPTER)
    else:
        load_full_weights(policy.model, path / WEIGHTS)


def load_full_weights(model: Any, file: Path) -> None:
    """Copy a full fine-tune's tensors into `model` in place (tied embeddings are saved once)."""
    import torch
    from safetensors.torch import load_file

    loaded = load_file(str(file))
    params = dict(model.state_dict())
    missing = [k for k in params if k not in loaded and not model.config.tie_word_embeddings]
    if missing:
        raise TrainingError(f"checkpoint weights {file} lack {len(missing)} tensors (first: {missing[0]})")
    with torch.no_grad():
        for name, value in loaded.items():
            params[name].copy_(value)


def scale_adapter(model: Any, factor: float) -> int:
    """Multiply every LoRA layer's update by `factor` in place (its B matrix, so B·A·scaling scales exactly): 0 is
    the base model, 1 the adapter as trained, in between a point on the straight line from the base to the fine-tune
    in weight space (weight-space ensembling). Returns how many layers were scaled; a model without LoRA layers (a
    full fine-tune, or none loaded) is refused."""
    import torch

    if not 0 <= factor <= 1:
        raise TrainingError(f"adapter scale {factor} is outside 0..1; give 0 (the base), 1 (as trained) or between")
    layers = [m for m in model.modules() if hasattr(m, "lora_B") and len(m.lora_B) > 0]
    if not layers:
        raise TrainingError("the model holds no LoRA adapter to scale; load a LoRA checkpoint (lora_r > 0) first")
    with torch.no_grad():
        for layer in layers:
            for up in layer.lora_B.values():
                up.weight.mul_(factor)
    return len(layers)


def average_adapters(model: Any, adapters: Sequence[Path]) -> int:
    """Make every LoRA layer's update the mean of the updates saved in `adapters` (adapter directories of the same
    targets, e.g. a run's last kept checkpoints): mean_k scale·B_k·A_k, held exactly as one adapter K times the rank
    (the A matrices stacked, the B matrices side by side and divided by K; the layer's scale unchanged), so it is
    what averaging the fine-tuned weights gives, without rounding into the base weights. Weight averaging over the
    last updates (latest-weight averaging). Returns how many layers were averaged; a model without LoRA layers, an
    adapter that lacks one of them or differs in shape is refused."""
    import torch
    from peft import load_peft_weights

    if not adapters:
        raise TrainingError("no adapters to average; give one or more adapter directories")
    layers = [(n, m) for n, m in model.named_modules() if hasattr(m, "lora_B") and len(m.lora_B) > 0]
    if not layers:
        raise TrainingError("the model holds no LoRA adapter to average; load a LoRA checkpoint (lora_r > 0) first")
    states = [load_peft_weights(str(path)) for path in adapters]
    k = len(states)
    with torch.no_grad():
        for name, layer in layers:
            if len(layer.lora_A) != 1:
                raise TrainingError(f"{name} holds {len(layer.lora_A)} adapters; average a model with one")
            (adapter, down), = layer.lora_A.items()
            up, rank = layer.lora_B[adapter], layer.r[adapter]  # the configured rank: the scale was computed from it
            pieces = []
            for path, state in zip(adapters, states):
                a, b = state.get(f"{name}.lora_A.weight"), state.get(f"{name}.lora_B.weight")
                fits = (a is not None and b is not None and tuple(a.shape) == (rank, down.in_features)
                        and tuple(b.shape) == (up.out_features, rank))
                if not fits:
                    raise TrainingError(f"adapter {path} does not fit {name} (targets or rank differ); average "
                                        "checkpoints of one run")
                pieces.append((a, b))
            stacked = torch.nn.Linear(down.in_features, k * rank, bias=False,
                                      dtype=down.weight.dtype, device=down.weight.device)
            beside = torch.nn.Linear(k * rank, up.out_features, bias=False,
                                     dtype=up.weight.dtype, device=up.weight.device)
            stacked.weight.copy_(torch.cat([a for a, _ in pieces]))
            beside.weight.copy_(torch.cat([b for _, b in pieces], dim=1) / k)
            layer.lora_A[adapter], layer.lora_B[adapter] = stacked, beside  # r and the scale stay as configured
    return len(layers)
