"""The run directory: database, the run's own config, checkpoints, heartbeat and a metrics export.

In: a path and a config (new run) or a path alone (resume). Out: an open `RunStore` and the config the run
was started with. A directory that already holds a run is never overwritten by a new one.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import yaml

from spade.config import SpadeConfig, config_from_dict
from spade.errors import StoreError
from spade.store import DB_NAME, RunStore

CONFIG_NAME = "config.yaml"
HEARTBEAT_NAME = "heartbeat.json"
METRICS_NAME = "metrics.jsonl"


def default_run_dir() -> Path:
    return Path("runs") / time.strftime("%Y%m%d-%H%M%S")


def create_run(run_dir: Path, cfg: SpadeConfig) -> RunStore:
    if (run_dir / DB_NAME).exists():
        raise StoreError(f"{run_dir} already holds a run; continue it with `spade run --resume {run_dir}`")
    run_dir.mkdir(parents=True, exist_ok=True)
    write_atomic(run_dir / CONFIG_NAME, yaml.safe_dump(cfg.model_dump(mode="json"), sort_keys=False))
    store = RunStore(run_dir, create=True)
    store.set_meta("created_at", str(time.time()))
    store.set_meta("seed", str(cfg.run.seed))
    return store


def open_run(run_dir: Path) -> tuple[RunStore, SpadeConfig]:
    store = RunStore(run_dir)
    path = run_dir / CONFIG_NAME
    if not path.is_file():
        raise StoreError(f"{run_dir} has a database but no {CONFIG_NAME}; it was not written by `spade run`")
    cfg = config_from_dict(yaml.safe_load(path.read_text()) or {}, source=str(path))
    return store, cfg


def write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def heartbeat(run_dir: Path, iteration: int, stage: str) -> None:
    """Where the run is now (read by `spade status` and by the crash-resume test)."""
    write_atomic(
        run_dir / HEARTBEAT_NAME,
        json.dumps({"iteration": iteration, "stage": stage, "pid": os.getpid(), "at": time.time()}),
    )


def export_metrics(store: RunStore) -> None:
    """Rewrite metrics.jsonl from the database (one line per committed iteration)."""
    rows = store.query("SELECT iteration, name, value FROM metrics ORDER BY iteration, name")
    by_iteration: dict[int, dict[str, float]] = {}
    for it, name, value in rows:
        by_iteration.setdefault(it, {"iteration": it})[name] = value
    write_atomic(store.run_dir / METRICS_NAME, "".join(json.dumps(m) + "\n" for m in by_iteration.values()))
