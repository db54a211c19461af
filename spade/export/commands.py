"""`spade export RUN_DIR --format F [--out FILE] [--tokenizer DIR] [--verl-code-truth]`: a run's data for a trainer.

In: a run directory, a format name, an optional output path (default RUN_DIR/exports/<format>.<ext>); for openrlhf
the tokenizer whose chat template renders `input` (default: chat messages, for --data.apply_chat_template); for
verl whether the ground truth also carries verl's common code format.
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
from spade.export.rows import read_rows, read_tasks
from spade.store import RunStore
from spade.untrusted import clean, clean_value

FORMATS = ("sft", "dpo", "grpo", "verl", "openrlhf", "proposer")
PYARROW_HINT = "pip install pyarrow==26.0.1"
_EMPTY_REASON = {
    "sft": "the run has no passing samples yet",
    "dpo": "no task has both a passing and a failing sample yet",
    "proposer": "no proposal has a reward above 0 yet",
}


def export_run(run_dir: str | Path, fmt: str, out: str | Path | None = None, *, tokenizer: str | None = None,
               verl_code: bool = False) -> tuple[Path, int]:
    """Write the export and return (path, rows); rows 0 means nothing was written."""
    if fmt not in FORMATS:
        raise ConfigError(f"export format {fmt!r} is unknown; choose one of {', '.join(FORMATS)}")
    if tokenizer is not None and fmt != "openrlhf":
        raise ConfigError(f"--tokenizer renders OpenRLHF prompts; it does not apply to --format {fmt}")
    if verl_code and fmt != "verl":
        raise ConfigError(f"--verl-code-truth writes verl's code ground truth; it does not apply to --format {fmt}")
    render = _chat_renderer(tokenizer) if tokenizer is not None else None
    run_dir = Path(run_dir)
    path = Path(out) if out is not None else run_dir / "exports" / f"{fmt}.{'parquet' if fmt == 'verl' else 'jsonl'}"
    with RunStore(run_dir, read_only=True) as store:
        rows = _rows(store, fmt, render, verl_code)
    if not rows:
        return path, 0
    path.parent.mkdir(parents=True, exist_ok=True)
    (_write_parquet if path.suffix == ".parquet" else _write_jsonl)(path, rows)
    return path, len(rows)


def export_command(run_dir: str | Path, fmt: str, out: str | Path | None = None, *, tokenizer: str | None = None,
                   verl_code: bool = False) -> int:
    """The CLI's entry: export, print one line, return the exit code (1 when there was nothing to export)."""
    path, n = export_run(run_dir, fmt, out, tokenizer=tokenizer, verl_code=verl_code)
    if n == 0:
        print(f"nothing to export as {fmt}: {_EMPTY_REASON.get(fmt, 'the run has no tasks yet')}")
        return 1
    print(f"wrote {n} {fmt} rows to {path}")
    return 0


def _rows(store: RunStore, fmt: str, render: Callable[[Any], str] | None, verl_code: bool) -> list[dict[str, Any]]:
    if fmt == "sft":
        return formats.sft_rows(read_rows(store))
    if fmt == "dpo":
        return formats.dpo_rows(read_rows(store))
    if fmt == "proposer":
        from spade.store.proposals import final_proposals

        return formats.proposer_rows(final_proposals(store))
    tasks = read_tasks(store)
    if fmt == "grpo":
        return formats.grpo_rows(tasks)
    if fmt == "verl":
        return formats.verl_rows(tasks, verl_code=verl_code)
    return formats.openrlhf_rows(tasks, render)


def _chat_renderer(tokenizer: str) -> Callable[[Any], str]:
    """Renders prompts with the chat template of a local tokenizer directory ('embedded': the embedded model's);
    the tokenizer alone is loaded, never weights, and nothing is downloaded."""
    from spade.policy.prompts import render_chat

    tok = _load_tokenizer(tokenizer)
    if not getattr(tok, "chat_template", None):
        raise ConfigError(f"--tokenizer {tokenizer}: this tokenizer has no chat template; name one that has (or "
                          "leave --tokenizer out to export chat messages for --data.apply_chat_template)")
    return lambda prompt: render_chat(tok, prompt)


def _load_tokenizer(name: str) -> Any:
    try:
        from transformers import AutoTokenizer
    except ImportError:
        raise ConfigError("--tokenizer needs transformers; install it or export chat messages without --tokenizer") from None
    if name == "embedded":
        from spade.policy.model_files import ensure_converted

        return AutoTokenizer.from_pretrained(str(ensure_converted()), local_files_only=True)
    if not Path(name).is_dir():
        raise ConfigError(f"--tokenizer {name}: not a directory; give a local Hugging Face model or tokenizer "
                          "directory (or 'embedded' for SmolLM2's)")
    try:
        return AutoTokenizer.from_pretrained(name, local_files_only=True)
    except (OSError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ConfigError(f"--tokenizer {name}: no tokenizer could be loaded from it ({first})") from None


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    def write(tmp: Path) -> None:
        with open(tmp, "w", encoding="utf-8") as fh:
            for row in rows:  # a lone surrogate in any string (a decoded escape) becomes U+FFFD: valid UTF-8
                fh.write(clean(json.dumps(row, ensure_ascii=False)) + "\n")

    _replace_whole(path, write)


def _replace_whole(path: Path, write: Callable[[Path], None]) -> None:
    """`write` a temporary file beside `path`, then rename it over `path`: a failure (or Ctrl-C) leaves the old
    file, or none, and never a partial or temporary one."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _write_parquet(path: Path, rows: list[dict[str, Any]]) -> None:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ConfigError(f"writing {path.name} (parquet) needs pyarrow; install it with `{PYARROW_HINT}`") from None
    _replace_whole(path, lambda tmp: pq.write_table(pa.Table.from_pylist(clean_value(rows)), str(tmp)))
