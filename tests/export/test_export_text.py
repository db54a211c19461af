"""Every export format writes valid UTF-8 from a run whose text holds lone surrogates (a task decoded from JSON
escapes, a completion), and a failed write leaves no partial or temporary file. Real run database, real sandbox."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from spade.config import RewardConfig
from spade.export import FORMATS, export_run
from spade.records import Candidate
from spade.rollout import Grader
from spade.store import IterationTask, IterationWrite, RunStore
from tests.export.conftest import SUM_EVENS

RIGHT = "def sum_evens(nums):\n    return sum(n for n in nums if n % 2 == 0)\n"


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory: pytest.TempPathFactory, pool) -> Path:
    path = tmp_path_factory.mktemp("hostile")
    task = replace(SUM_EVENS, description=SUM_EVENS.description + " \ud800")
    w = IterationWrite(iteration=0)
    w.tasks = [IterationTask(task, "generated")]
    completions = [RIGHT + "```\n\ud800 done", "def sum_evens(nums):\n    return 0  # \udc80\n```"]
    cands = [Candidate(f"{task.task_id}:0:{k}", task.task_id, c, c.split("```")[0], "test", "hash", k, 10)
             for k, c in enumerate(completions)]
    w.rollouts = Grader(pool, RewardConfig()).grade_candidates([task, task], cands)
    with RunStore(path, create=True) as store:
        store.commit_iteration(w)
    return path


@pytest.mark.parametrize("fmt", [f for f in FORMATS if f != "proposer"])
def test_every_format_writes_valid_utf8_from_text_holding_lone_surrogates(hostile_run: Path, tmp_path: Path,
                                                                           fmt: str) -> None:
    path, n = export_run(hostile_run, fmt, tmp_path / f"out.{'parquet' if fmt == 'verl' else 'jsonl'}")
    assert n > 0 and path.stat().st_size > 0
    if path.suffix == ".jsonl":
        text = path.read_bytes().decode("utf-8")  # strict: raises on an encoded surrogate
        assert "\ufffd" in text
    assert [p.name for p in tmp_path.iterdir()] == [path.name]


def test_a_failed_write_leaves_no_temporary_file(hostile_run: Path, tmp_path: Path) -> None:
    for fmt, name in (("grpo", "out.jsonl"), ("verl", "out.parquet")):
        target = tmp_path / name
        target.mkdir()  # the final rename cannot replace a directory
        with pytest.raises(OSError):
            export_run(hostile_run, fmt, target)
        assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
