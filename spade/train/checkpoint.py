"""Checkpoints after a policy update: adapter (or full weights), optimizer, RNG states and the caller's state.

In: a checkpoint root, a step, the policy and its `Trainer` (spade.train.base), plus a JSON-able dict (controller state...).
Out: `<root>/ckpt-<step>/`, written into a temporary sibling and renamed, so a crash never leaves half of one.
`prune` keeps the N most recent plus the one marked best; `load_checkpoint` restores everything in place. The
layout and weight loading are spade.policy.weights (evaluation loads weights without a trainer).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import tempfile
from pathlib import Path
from typing import Any

from spade.errors import TrainingError
from spade.policy.weights import (
    ADAPTER,
    BEST_FILE,
    PREFIX,
    WEIGHTS,
    best_checkpoint,
    checkpoints,
    latest_checkpoint,
    load_weights,
)
from spade.train.base import Trainer

__all__ = ["best_checkpoint", "checkpoint_name", "latest_checkpoint", "load_checkpoint", "mark_best", "prune",
           "save_checkpoint"]


def checkpoint_name(step: int) -> str:
    return f"{PREFIX}{step:08d}"


def save_checkpoint(
    root: str | Path, step: int, policy: Any, trainer: Trainer, extra: dict[str, Any] | None = None,
    *, best: bool = False,
) -> Path:
    """Write checkpoint `step` under `root` atomically and return its path; `best` also marks it best."""
    import torch

    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    final = root / checkpoint_name(step)
    tmp = Path(tempfile.mkdtemp(prefix=f".{final.name}.", dir=root))
    try:
        trainer.prepare()
        _save_weights(policy.model, tmp)
        torch.save(trainer.optimizer.state_dict(), tmp / "optimizer.pt")
        torch.save({"torch": torch.get_rng_state()}, tmp / "rng.pt")
        state = {"step": step, "updates": trainer.updates, "python_rng": _jsonable(random.getstate()),
                 "extra": extra or {}}
        (tmp / "state.json").write_text(json.dumps(state, indent=1))
        if final.exists():  # re-saving the same step (a redone iteration) replaces it
            shutil.rmtree(final)
        os.replace(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if best:
        mark_best(root, final.name)
    return final


def load_checkpoint(path: str | Path, policy: Any, trainer: Trainer) -> dict[str, Any]:
    """Restore weights, optimizer and RNG states from `path` in place; returns the caller's extra state."""
    import torch

    path = Path(path)
    if not (path / "state.json").is_file():
        raise TrainingError(f"checkpoint path {path} holds no state.json; pass a directory written by save_checkpoint")
    trainer.prepare()  # the optimizer must exist, holding the very parameters the weights are loaded into
    load_weights(path, policy)
    trainer.optimizer.load_state_dict(torch.load(path / "optimizer.pt", weights_only=True))
    torch.set_rng_state(torch.load(path / "rng.pt", weights_only=True)["torch"])
    state = json.loads((path / "state.json").read_text())
    random.setstate(_tupled(state["python_rng"]))
    trainer.updates = int(state["updates"])
    return dict(state["extra"])


def mark_best(root: str | Path, name: str) -> None:
    """Record `name` as the best checkpoint (atomic write of best.json)."""
    root = Path(root)
    tmp = root / f".{BEST_FILE}.tmp"
    tmp.write_text(json.dumps({"best": name}))
    os.replace(tmp, root / BEST_FILE)


def prune(root: str | Path, keep: int, best: str | Path | None = None) -> list[Path]:
    """Delete all but the `keep` most recent checkpoints and `best` (default: the one marked best)."""
    root = Path(root)
    if keep < 0:
        raise TrainingError(f"prune keep = {keep} must be 0 or more")
    best_path = Path(best) if best is not None else best_checkpoint(root)
    best_name = best_path.name if best_path is not None else None
    found = checkpoints(root)
    doomed = [p for p in found[: max(len(found) - keep, 0)] if p.name != best_name]
    for p in doomed:
        shutil.rmtree(p)
    return doomed


def _save_weights(model: Any, out: Path) -> None:
    from peft import PeftModel

    if isinstance(model, PeftModel):
        model.save_pretrained(str(out / ADAPTER))
        return
    from safetensors.torch import save_file

    # Tied embeddings share storage; safetensors refuses shared tensors, so save one name per storage.
    seen: set[int] = set()
    tensors = {}
    for name, tensor in model.state_dict().items():
        if tensor.data_ptr() in seen:
            continue
        seen.add(tensor.data_ptr())
        tensors[name] = tensor.detach().contiguous()
    save_file(tensors, str(out / WEIGHTS))


def _jsonable(state: Any) -> Any:
    return [_jsonable(x) for x in state] if isinstance(state, tuple) else state


def _tupled(state: Any) -> Any:
    return tuple(_tupled(x) for x in state) if isinstance(state, list) else state
