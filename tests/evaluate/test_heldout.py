"""The held-out suite: a seed range training cannot draw, validated and deduplicated tasks, dev and test splits
that share no problem, a run's own tasks left out, and the suite by name in `spade eval` and the config."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from spade.config import SpadeConfig, load_config
from spade.dedup import DedupIndex
from spade.errors import ConfigError
from spade.evaluate import heldout
from spade.evaluate.suites import in_distribution, load_suite
from spade.generate.procedural import HELDOUT_SEED, draft_task, heldout_draft


@pytest.fixture(scope="module")
def suite(pool: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, list[Any]]]:
    """Both splits, built afresh into a private cache (tens of seconds), then loaded through the suite names."""
    mp = pytest.MonkeyPatch()
    mp.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
    try:
        built = {split: heldout.load_heldout(split, pool) for split in heldout.SPLITS}
        assert heldout.cache_path().is_file()
        yield {**built, "by_name": {name: load_suite(name) for name in ("heldout", "heldout-dev")}}
    finally:
        mp.undo()


def test_training_cannot_draw_the_held_out_seed() -> None:
    with pytest.raises(ValueError, match="reserved for the held-out suite"):
        draft_task("primes", 0.5, HELDOUT_SEED, 0, 3, 5)
    with pytest.raises(ConfigError, match="run.seed"):
        load_config(None, {"run.seed": HELDOUT_SEED})
    assert heldout_draft("primes", 0.5, 0, 3, 5).provenance["seed"] == HELDOUT_SEED


def test_the_test_split_is_large_enough_that_one_task_is_under_a_point(suite: dict[str, Any]) -> None:
    assert len(suite["test"]) > 100
    assert len(suite["dev"]) >= 50  # the gate's paired test needs tasks to pair


def test_dev_and_test_share_no_problem_and_no_two_tasks_are_duplicates(suite: dict[str, Any]) -> None:
    everything = suite["dev"] + suite["test"]
    assert len({t.task_id for t in everything}) == len(everything)
    index = DedupIndex()
    for task in everything:
        assert not index.check(task).duplicate, task.task_id
        index.add(task)
    assert all(heldout.split_of(t.task_id) == "test" for t in suite["test"])


def test_every_task_was_validated_and_its_reference_scores_one(pool: Any, suite: dict[str, Any]) -> None:
    tasks = suite["dev"] + suite["test"]
    assert all(t.provenance["seed"] == HELDOUT_SEED and t.params.get("reference_cpu_s") for t in tasks)
    results = pool.score_many([(t, t.reference_solution) for t in tasks])
    assert [t.task_id for t, r in zip(tasks, results) if r.score != 1.0] == []
    assert len({t.family for t in tasks}) >= 20  # in distribution: the families the loop trains on


def test_the_suite_is_the_same_from_the_cache_and_by_name(suite: dict[str, Any]) -> None:
    assert suite["by_name"]["heldout"] == suite["test"]
    assert suite["by_name"]["heldout-dev"] == suite["dev"]
    assert in_distribution("heldout") and in_distribution("heldout-dev") and not in_distribution("builtin")


def test_tasks_a_run_trained_on_are_left_out(suite: dict[str, Any]) -> None:
    tasks = suite["test"]
    trained = [replace(tasks[0], task_id="run-task-1"), replace(tasks[5], task_id="run-task-2")]
    kept, dropped = heldout.drop_trained(tasks, trained, 0.85)
    assert dropped == 2 and tasks[0] not in kept and tasks[5] not in kept and len(kept) == len(tasks) - 2


def test_the_config_selects_the_held_out_suite_and_refuses_to_gate_on_what_it_reports() -> None:
    cfg = load_config(None, {"eval.suite": "heldout"})
    assert (cfg.eval.suite, cfg.eval.gate_suite) == ("heldout", "heldout-dev")
    with pytest.raises(ConfigError, match="gate_suite"):
        load_config(None, {"eval.suite": "heldout-dev"})
    assert SpadeConfig().eval.gate_suite == "heldout-dev"
