"""Graded answers of one trainer step, gathered across reward workers and reported as one iteration.

verl scores each sample on its own, in several reward-worker processes. In: one graded answer at a time, with its
row's group key and the group's size (`spade.env.verl.SpadeDataset` writes both into `extra_info`). The answer is
kept in RUN_DIR/groups/<key>/ until the group's last one arrives; that call reports them all with
`Environment.report(key=...)` (one committed iteration, counted once even if two workers race) and removes the
folder. Files are written whole and renamed into place under a per-group lock, so a crash loses at most the group
in flight.
"""

from __future__ import annotations

import fcntl
import os
import pickle
import re
import shutil
import uuid
from collections.abc import Sequence
from pathlib import Path

from spade.env.environment import Environment, Report
from spade.env.grading import Graded

FOLDER = "groups"
GROUP_KEY = "spade_group"  # a row's extra_info: the step group it belongs to, and how many answers complete it
GROUP_SIZE_KEY = "spade_group_size"
_KEY = re.compile(r"[A-Za-z0-9_-]{1,64}")


def add(env: Environment, key: str, size: int, graded: Sequence[Graded], *, model: str = "external"
        ) -> Report | None:
    """Keep `graded` under group `key`; once `size` answers are kept, report them as one iteration and return its
    Report (None while the group is incomplete). A malformed key or size reports `graded` on its own."""
    if not isinstance(key, str) or not _KEY.fullmatch(key) or not isinstance(size, int) or size < 1:
        return env.report(graded, model=model)
    root = env.run_dir / FOLDER
    folder = root / key
    root.mkdir(parents=True, exist_ok=True)
    with _Lock(root / f".{key}.lock"):
        folder.mkdir(exist_ok=True)
        for g in graded:
            _write(folder, g)
        kept = sorted(folder.glob("*.pkl"))
        if len(kept) < size:
            return None
        answers = [pickle.loads(p.read_bytes()) for p in kept]  # written by this run's own reward workers
        report = env.report(answers, model=model, key=f"group:{key}")
        shutil.rmtree(folder, ignore_errors=True)
    (root / f".{key}.lock").unlink(missing_ok=True)
    return report


def _write(folder: Path, graded: Graded) -> None:
    name = uuid.uuid4().hex
    tmp = folder / f".{name}.tmp"
    tmp.write_bytes(pickle.dumps(graded))
    os.replace(tmp, folder / f"{name}.pkl")


class _Lock:
    """An exclusive lock across processes on a file beside the group's folder."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __enter__(self) -> None:
        self.fh = open(self.path, "a")
        fcntl.flock(self.fh, fcntl.LOCK_EX)

    def __exit__(self, *exc: object) -> None:
        self.fh.close()
