"""load_suite: named suites, task files, and a clear error for anything else."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spade.errors import ConfigError, TaskFormatError
from spade.evaluate.suites import load_suite, suite_names


def test_builtin_suite_loads_at_least_sixty_tasks_with_unique_ids() -> None:
    tasks = load_suite("builtin")
    assert len(tasks) >= 60
    assert len({t.task_id for t in tasks}) == len(tasks)


def test_unknown_suite_name_raises_config_error_listing_the_choices() -> None:
    with pytest.raises(ConfigError) as info:
        load_suite("mbpp-but-misspelled")
    message = str(info.value)
    assert "mbpp-but-misspelled" in message
    for name in suite_names():
        assert name in message


def test_a_jsonl_path_loads_tasks_in_the_write_up_schema(tmp_path: Path) -> None:
    record = {
        "task_id": "mine_1", "description": "Add one.", "signature": "def inc(x: int) -> int:",
        "difficulty": 0.1, "tags": ["math"], "test_cases": [{"input": [1], "expected": 2}],
    }
    path = tmp_path / "mine.jsonl"
    path.write_text(json.dumps(record) + "\n")
    (task,) = load_suite(str(path))
    assert task.task_id == "mine_1"
    assert task.entry_point == "inc"
    assert task.test_cases[0].args == (1,)


def test_a_missing_task_file_raises_task_format_error(tmp_path: Path) -> None:
    with pytest.raises(TaskFormatError):
        load_suite(str(tmp_path / "absent.json"))
