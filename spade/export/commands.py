"""`spade export RUN_DIR --format F [--out FILE]`: write a run's data in a trainer's format.

In: a run directory, a format name, an optional output path (default RUN_DIR/exports/<format>.<ext>).
Out: the file, written atomically (JSONL, or parquet for verl), and an exit code. Unknown formats, missing
runs and a missing pyarrow are user mistakes (one-line `SpadeError`s); an empty export writes nothing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from spade.errors import ConfigError
from spade.export import formats
from spade.export.rows import read_rollouts, read_tasks
from spade.store import RunStore

FORMATS = ("sft", "dpo", "grpo", "verl", "openrlhf")
PYARROW_HINT = "pip install pyarrow==26.0.1"
_EMPTY_REASON = {
    "sft": "the run has no passing samples yet",
    "dpo": "no task has both a passing and a failing sample yet",
}


def export_run(run_dir: str | Path, fmt: str, out: str | Path | None = None) -> tuple[Path, int]:
    """Write the export and return (path, rows); rows 0 means nothing was written."""
    if fmt not in FORMATS:
        raise ConfigError(f"export format {fmt!r} is unknown; choose one of {', '.join(FORMATS)}")
    run_dir = Path(run_dir)
    path = Path(out) if out is not None else run_dir / "exports" / f"{fmt}.{'parquet' if fmt == 'verl' else 'jsonl'}"
    with RunStore(run_dir, read_only=True) as store:
        rows = _rows(store, fmt)
    if not rows:
        return path, 0
    path.parent.mkdir(parents=True, exist_ok=True)
    (_write_parquet if path.suffix == ".parquet" else _write_jsonl)(path, rows)
    return path, len(rows)


def export_command(run_dir: str | Path, fmt: str, out: str | Path | None = None) -> int:
    """The CLI's entry: export, print one line, return the exit code (1 when there was nothing to export)."""
    path, n = export_run(run_dir, fmt, out)
    if n == 0:
        print(f"nothing to export as {fmt}: {_EMPTY_REASON.get(fmt, 'the run has no tasks yet')}")
        return 1
    print(f"wrote {n} {fmt} rows to {path}")
    return 0


def _rows(store: RunStore, fmt: str) -> list[dict[str, Any]]:
    if fmt == "sft":
        return formats.sft_rows(read_rollouts(store))
    if fmt == "dpo":
        return formats.dpo_rows(read_rollouts(store))
    tasks = read_tasks(store)
    if fmt == "grpo":
        return formats.grpo_rows(tasks)
    if fmt == "verl":
        return formats.verl_rows(tasks)
    return formats.openrlhf_rows(tasks, _chat_renderer()) if tasks else []


def _chat_renderer() -> Callable[[Any], str]:
    """Renders prompts with the embedded model's chat template (the tokenizer alone: no weights are loaded)."""
    from transformers import AutoTokenizer

    from spade.policy.model_files import ensure_converted
    from spade.policy.prompts import render_chat

    tokenizer = AutoTokenizer.from_pretrained(str(ensure_converted()), local_files_only=True)
    return lambda prompt: render_chat(tokenizer, prompt)


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    os.replace(tmp, path)


def _write_parquet(path: Path, rows: list[dict[str, Any]]) -> None:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ConfigError(f"writing {path.name} (parquet) needs pyarrow; install it with `{PYARROW_HINT}`") from None
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    pq.write_table(pa.Table.from_pylist(rows), str(tmp))
    os.replace(tmp, path)
