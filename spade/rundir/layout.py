"""The run directory: database, the run's own config, checkpoints, heartbeat and a metrics export.

In: a path and a config (new run) or a path alone (resume). Out: an open `RunStore` and the config the run
was started with. A directory that already holds a run is never overwritten by a new one; one that cannot be
written is refused before anything is made, and a creation that fails removes what it made: a run directory
holds a database only once that database is complete (it is built under a temporary name, then renamed).
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import time
from pathlib import Path

import yaml

from spade.config import SpadeConfig, config_from_dict, read_yaml_mapping
from spade.errors import EXIT_INFRA, StoreError
from spade.store import DB_NAME, RunStore

CONFIG_NAME = "config.yaml"
HEARTBEAT_NAME = "heartbeat.json"
METRICS_NAME = "metrics.jsonl"


def default_run_dir() -> Path:
    return Path("runs") / time.strftime("%Y%m%d-%H%M%S")


MIN_FREE_BYTES = 64 << 20  # the database and config need little; checkpoints need far more, but later
_TMP_DB = ".spade.sqlite.new"


def create_run(run_dir: Path, cfg: SpadeConfig, min_free_bytes: int = MIN_FREE_BYTES) -> RunStore:
    if (run_dir / DB_NAME).exists():
        if not (run_dir / CONFIG_NAME).is_file():
            raise StoreError(f"{run_dir} holds a {DB_NAME} but no {CONFIG_NAME}: not a run `spade run` can resume "
                             "(a creation that failed in an older version?); remove it or choose another --run-dir")
        raise StoreError(f"{run_dir} already holds a run; continue it with `spade run --resume {run_dir}`")
    check_writable(run_dir, min_free_bytes)
    made = missing_dirs(run_dir)
    try:
        for d in made:
            d.mkdir()
        write_atomic(run_dir / CONFIG_NAME, yaml.safe_dump(cfg.model_dump(mode="json"), sort_keys=False))
        tmp = run_dir / _TMP_DB
        _remove_db(tmp)  # left by a creation killed earlier
        with RunStore(run_dir, create=True, db_name=_TMP_DB) as store:
            store.set_meta("created_at", str(time.time()))
            store.set_meta("seed", str(cfg.run.seed))
        os.replace(tmp, run_dir / DB_NAME)  # closed cleanly above: no write-ahead log is left behind
    except BaseException as exc:
        _remove_db(run_dir / _TMP_DB)
        _remove_db(run_dir / DB_NAME)
        if made:  # the directory is ours: leave nothing; else keep what the user had in it
            shutil.rmtree(made[0], ignore_errors=True)
        else:
            (run_dir / CONFIG_NAME).unlink(missing_ok=True)
        if isinstance(exc, (OSError, StoreError)):
            why = f"{exc.strerror} ({exc.filename})" if isinstance(exc, OSError) else getattr(exc, "reason", str(exc))
            raise StoreError(f"cannot create a run in {run_dir}: {why}; nothing was left behind; choose a writable "
                             "--run-dir with free space", exit_code=EXIT_INFRA) from None
        raise
    return RunStore(run_dir)


def discard_run(run_dir: Path, made: list[Path]) -> None:
    """Remove a new run that failed before its first iteration: the directories this run `made` (missing_dirs
    before it began), else only the files a run writes (the user's own files in the directory are kept)."""
    if made:
        shutil.rmtree(made[0], ignore_errors=True)
        return
    _remove_db(run_dir / DB_NAME)
    for name in (CONFIG_NAME, HEARTBEAT_NAME, METRICS_NAME):
        (run_dir / name).unlink(missing_ok=True)


def check_writable(run_dir: Path, min_free_bytes: int = MIN_FREE_BYTES) -> None:
    """Refuse, before anything is made, a run directory under a file, on read-only media, not writable, or on
    a file system with less than `min_free_bytes` free."""
    existing = run_dir
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise StoreError(f"cannot create a run in {run_dir}: {existing} is a file, not a directory; choose another "
                         "--run-dir")
    try:
        fs = os.statvfs(existing)
    except OSError as exc:
        raise StoreError(f"cannot create a run in {run_dir}: {existing}: {exc.strerror}", exit_code=EXIT_INFRA) from None
    if fs.f_flag & os.ST_RDONLY or not os.access(existing, os.W_OK | os.X_OK):
        why = "is on a read-only file system" if fs.f_flag & os.ST_RDONLY else "is not writable by this user"
        raise StoreError(f"cannot create a run in {run_dir}: {existing} {why}; choose a writable --run-dir",
                         exit_code=EXIT_INFRA)
    free = fs.f_bavail * fs.f_frsize
    if free < min_free_bytes:
        raise StoreError(f"cannot create a run in {run_dir}: only {free >> 10} KiB free on its file system, a run "
                         f"needs at least {min_free_bytes >> 20} MiB (checkpoints far more); free space or choose "
                         "another --run-dir", exit_code=EXIT_INFRA)


def missing_dirs(run_dir: Path) -> list[Path]:
    """The directories mkdir -p would make, outermost first."""
    missing = []
    while not run_dir.exists() and run_dir != run_dir.parent:
        missing.append(run_dir)
        run_dir = run_dir.parent
    return missing[::-1]


def _remove_db(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            path.with_name(path.name + suffix).unlink(missing_ok=True)
        except OSError:
            pass


def open_run(run_dir: Path) -> tuple[RunStore, SpadeConfig]:
    store = RunStore(run_dir)
    path = run_dir / CONFIG_NAME
    if not path.is_file():
        raise StoreError(f"{run_dir} has a database but no {CONFIG_NAME}; it was not written by `spade run` (or its "
                         "creation failed in an older version): start a new run in another --run-dir")
    cfg = config_from_dict(read_yaml_mapping(path), source=str(path))
    return store, cfg


def write_atomic(path: Path, text: str) -> None:
    """Replace `path` with `text` whole or not at all. A full or read-only disk raises OSError (create_run cleans
    up after it); heartbeat and metrics turn it into a one-line StoreError."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _run_file(path: Path, text: str, what: str) -> None:
    try:
        write_atomic(path, text)
    except OSError as exc:
        full = " (the disk is full)" if exc.errno in (errno.ENOSPC, errno.EDQUOT) else ""
        raise StoreError(f"cannot write {what} {path}: {exc.strerror}{full}; committed iterations are intact, "
                         f"resume with `spade run --resume {path.parent}` once it is fixed", exit_code=EXIT_INFRA) from None


def heartbeat(run_dir: Path, iteration: int, stage: str) -> None:
    """Where the run is now (read by `spade status` and by the crash-resume test)."""
    _run_file(
        run_dir / HEARTBEAT_NAME,
        json.dumps({"iteration": iteration, "stage": stage, "pid": os.getpid(), "at": time.time()}),
        "the heartbeat",
    )


def export_metrics(store: RunStore) -> None:
    """Rewrite metrics.jsonl from the database (one line per committed iteration)."""
    from spade.store.views import metric_rows

    rows = metric_rows(store)
    by_iteration: dict[int, dict[str, float]] = {}
    for it, name, value in rows:
        by_iteration.setdefault(it, {"iteration": it})[name] = value
    _run_file(store.run_dir / METRICS_NAME, "".join(json.dumps(m) + "\n" for m in by_iteration.values()),
              "the metrics export")
