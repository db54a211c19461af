"""Environment.step on hostile text: a lone surrogate in a completion, in the model name or in a task of the
caller's own, and a model name of megabytes, are graded and recorded (bounded, encodable) rather than losing the
step's report; a correct answer beside them still scores 1.0. Real sandbox, real SQLite."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from spade.config import load_config
from spade.env import Environment
from spade.untrusted import MAX_FIELD_BYTES, MAX_STORED_BYTES

FAMILY = "list_transform"


@pytest.fixture
def env(tmp_path: Path):
    cfg = load_config(None, {"generation.families": [FAMILY], "generation.tasks_per_iteration": 2,
                             "executor.workers": 2, "generation.compose_share": 0.0})
    with Environment.open(tmp_path / "run", cfg) as e:
        yield e


def _rows(env: Environment, sql: str) -> list[tuple]:
    with sqlite3.connect(env.run_dir / "spade.sqlite") as conn:
        return conn.execute(sql).fetchall()


def test_a_lone_surrogate_anywhere_is_graded_and_the_step_is_recorded(env: Environment) -> None:
    task = env.draw(1)[0].task
    right = f"```python\n{task.reference_solution}\n```"
    own = replace(task, task_id=task.task_id + "-own", description=task.description + " \ud800")
    commented = f"```python\n# \udfff\n{task.reference_solution}\n```"
    graded, report = env.step([task.task_id, task.task_id, own], [right, right + "\n\ud800 and prose", commented],
                              model="m\ud800")
    assert report.committed
    assert [g.passed for g in graded] == [True, True, True]
    assert graded[0].reward.total >= 1.0
    stored = _rows(env, "SELECT completion, model FROM candidates ORDER BY rowid")
    assert len(stored) == 3 and stored[1][0].endswith("\ufffd and prose") and stored[0][1] == "m\ufffd"


def test_a_model_name_of_megabytes_is_stored_as_a_bounded_excerpt(env: Environment) -> None:
    task = env.draw(1)[0].task
    graded, report = env.step([task.task_id], [f"```python\n{task.reference_solution}\n```"], model="x" * 7_000_000)
    assert report.committed and graded[0].passed
    stored = _rows(env, "SELECT model FROM candidates") + _rows(env, "SELECT model FROM audit WHERE kind = 'candidate'")
    for (model,) in stored:
        assert len(model.encode()) <= MAX_FIELD_BYTES and "[truncated" in model


def test_a_completion_of_megabytes_is_stored_as_a_bounded_excerpt(env: Environment) -> None:
    task = env.draw(1)[0].task
    graded, _ = env.step([task.task_id], [f"```python\n{task.reference_solution}\n```\n" + "blah " * 1_000_000])
    assert graded[0].passed
    (completion,) = _rows(env, "SELECT completion FROM candidates")[0]
    assert len(completion.encode()) <= MAX_STORED_BYTES and completion.endswith("bytes]")
