"""A static dataset (generation.fixed_tasks): every draw comes from one fixed, validated task set — each task once in
a seeded order before any repeats — and nothing is generated, proposed or replayed besides: the baseline a live
environment is measured against (bench/efficacy.py's static arm)."""

from __future__ import annotations

import json

import pytest

from spade.config import load_config
from spade.env import Environment
from spade.errors import ConfigError
from spade.evaluate.suites import load_suite
from spade.taskio import task_to_dict


@pytest.fixture
def task_file(tmp_path):
    path = tmp_path / "fixed.jsonl"
    tasks = load_suite("builtin")[:5]
    path.write_text("".join(json.dumps(task_to_dict(t)) + "\n" for t in tasks))
    return path, {t.task_id for t in tasks}


def test_draws_cycle_through_the_fixed_set_and_nothing_else(tmp_path, task_file):
    path, ids = task_file
    cfg = load_config(None, {"generation.fixed_tasks": str(path), "selfplay.enabled": False,
                             "generation.tasks_per_iteration": 3, "executor.workers": 1})
    with Environment.open(tmp_path / "run", cfg) as env:
        draws = [env.draw() for _ in range(4)]
        stored = {t.task_id for t in env._store().tasks()}
    seen = [d.task.task_id for draw in draws for d in draw]
    assert set(seen) == ids == stored  # only the file's tasks, all of them stored
    assert all(len({d.task.task_id for d in draw}) == len(draw) == 3 for draw in draws)
    firsts = {}
    for k, draw in enumerate(draws):
        for d in draw:
            firsts.setdefault(d.task.task_id, (k, d.origin))
    assert {origin for _, origin in firsts.values()} == {"generated"}  # a task's first draw stores it
    assert any(d.origin == "replay" for draw in draws[1:] for d in draw)  # later draws repeat stored ones


def test_a_fixed_set_with_self_play_on_is_refused_in_one_line(task_file):
    with pytest.raises(ConfigError, match="generation.fixed_tasks .* selfplay.enabled=false"):
        load_config(None, {"generation.fixed_tasks": str(task_file[0])})
