"""A checkpoint's weights as a policy reads them, without a trainer: the layout training writes
(<root>/ckpt-<step>/ with adapter/ or weights.safetensors, <root>/best.json), best and latest lookup, and loading.

In: a checkpoint root or directory and a policy (EmbeddedPolicy). Out: the directory, or the policy's model holding
those weights. spade.train.checkpoint writes this layout and restores optimizer and RNG state on top.
"""

from __future__ import annotations

import json
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
