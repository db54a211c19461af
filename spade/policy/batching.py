"""How many sequences one generate call runs: the configured number, or with `auto` up to AUTO_MAX_ROWS of the
sampling call's sequences at once, fewer when a share of the free memory holds fewer.

In: the `sampling.batch_size` setting, the number of sequences to sample, what one row costs in memory. Out: the
batch size. Why a cap and not "everything at once": rows share one cache width (the longest prompt plus
max_new_tokens) and decode attention reads every column of it, so a huge batch of prompts of mixed length pays for
padding; the policy sorts its sequences by length, so batches of at most 64 keep similar lengths together, while
64 rows already fill the matrix products (bench/batching.py: one batch of 64 gave 1.17x the sequences/s of two of 32).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

AUTO_MAX_ROWS = 64
AUTO_MEMORY_SHARE = 0.25


def row_bytes(model_config: Any, prompt_tokens: int, max_new_tokens: int, elem_bytes: int) -> int:
    """Memory one row of a batch holds while it samples: its KV cache over every layer, the float32 logits and
    nucleus buffers of a step, and one layer's prefill activations for its prompt."""
    layers = int(model_config.num_hidden_layers)
    heads = int(model_config.num_attention_heads)
    kv_heads = int(getattr(model_config, "num_key_value_heads", None) or heads)
    hidden = int(model_config.hidden_size)
    head_dim = int(getattr(model_config, "head_dim", None) or hidden // heads)
    intermediate = int(model_config.intermediate_size)
    vocab = int(model_config.vocab_size)
    columns = prompt_tokens + max_new_tokens
    cache = layers * 2 * kv_heads * columns * head_dim * elem_bytes
    step = 4 * vocab * 4 + 4 * columns
    prefill = prompt_tokens * (2 * intermediate + 4 * hidden) * elem_bytes + 4 * heads * prompt_tokens * prompt_tokens
    return cache + step + prefill


def available_bytes() -> int:
    """Memory this process may still use: the kernel's MemAvailable, or less under a cgroup (v2) limit."""
    free = _meminfo_available()
    limit = _read_int(Path("/sys/fs/cgroup/memory.max"))
    used = _read_int(Path("/sys/fs/cgroup/memory.current"))
    if limit is not None and used is not None:
        free = min(free, max(0, limit - used))
    return free


def batch_size(setting: int | Literal["auto"], sequences: int, one_row_bytes: int, free_bytes: int) -> int:
    """Rows per generate call: the setting when it is a number, else what `auto` allows (at least 1)."""
    if setting != "auto":
        return int(setting)
    fit = int(free_bytes * AUTO_MEMORY_SHARE) // max(1, one_row_bytes)
    return max(1, min(sequences, AUTO_MAX_ROWS, fit))


def _meminfo_available() -> int:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def _read_int(path: Path) -> int | None:
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None  # 'max' means no limit
