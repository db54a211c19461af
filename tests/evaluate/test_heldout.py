"""The held-out suite: a seed range training cannot draw, validated and deduplicated tasks, composed variants of
them that change their seed's answer, dev and test splits that share no problem (nor a seed problem), a run's own
tasks left out, and the suite by name in `spade eval` and the config."""

from __future__ import annotations

import hashlib
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

FEW = ("dict_ops", "list_transform", "primes", "rotate_list")  # a quick build for the fast tests


@pytest.fixture(scope="module")
def small(pool: Any) -> dict[str, list[Any]]:
    """The suite's recipe on four families and 30 draws each, composed variants included (seconds, not the full
    build's minutes)."""
    tasks = heldout.build(pool, FEW, draws=30)
    return {split: [t for t in tasks if t.provenance["split"] == split] for split in heldout.SPLITS}


@pytest.fixture(scope="module")
def suite(pool: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, list[Any]]]:
    """Both splits, built afresh into a private cache (40-60 s), then loaded through the suite names."""
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


def test_dev_and_test_share_no_problem_and_no_two_tasks_are_duplicates(small: dict[str, Any]) -> None:
    everything = small["dev"] + small["test"]
    assert small["dev"] and small["test"]
    assert len({t.task_id for t in everything}) == len(everything)
    index = DedupIndex()
    for task in everything:
        assert not index.check(task).duplicate, task.task_id
        index.add(task)
    assert all(heldout.split_of(t.task_id) == "test" for t in small["test"])


def test_every_task_was_validated_and_its_reference_scores_one(pool: Any, small: dict[str, Any]) -> None:
    tasks = small["dev"] + small["test"]
    assert all(t.provenance["seed"] == HELDOUT_SEED and t.reference_cpu_s for t in tasks)
    assert all(t.task_id.startswith("heldout/") and "heldout" in t.tags for t in tasks)
    results = pool.score_many([(t, t.reference_solution) for t in tasks])
    assert [t.task_id for t, r in zip(tasks, results) if r.score != 1.0] == []


def test_building_twice_gives_the_same_tasks(pool: Any, small: dict[str, Any]) -> None:
    def shape(t: Any) -> tuple[Any, ...]:  # all but the measured reference CPU time
        return t.task_id, t.description, t.reference_solution, t.test_cases, t.hidden_test_cases, t.difficulty

    again = heldout.build(pool, FEW, draws=30)
    assert [shape(t) for t in again] == [shape(t) for t in sorted(small["dev"] + small["test"], key=_order)]


def _order(t: Any) -> str:
    return hashlib.sha256(t.task_id.encode()).hexdigest()


def test_composed_variants_fill_the_suite_each_in_its_seeds_split_and_changing_its_seeds_answer(
        pool: Any, small: dict[str, Any]) -> None:
    from spade.sandbox import OutcomeKind, values_equal

    tasks = small["dev"] + small["test"]
    by_id = {t.task_id: t for t in tasks}
    composed = [t for t in tasks if "composed" in t.tags]
    plain = [t for t in tasks if "composed" not in t.tags]
    assert len(composed) > len(plain)  # a family's few problems, multiplied
    for family in FEW:
        assert 0 < sum(t.family == family for t in composed) <= heldout.COMPOSED_PER_FAMILY
    for task in composed:
        seed = by_id[task.params["seed_task"]]  # the seed is in the suite, under the variant's family and split
        assert task.task_id.startswith(seed.task_id + "~v") and task.family == seed.family
        assert task.provenance["split"] == seed.provenance["split"] == heldout.split_of(task.task_id)
        assert task.provenance["seed"] == HELDOUT_SEED and task.tags.count("heldout") == 1
    # The composed step changes the seed's answer on some test (both sides run in the sandbox).
    runs = [_run_seed_on(pool, by_id[t.params["seed_task"]], t) for t in composed]
    for task, run in zip(composed, runs):
        outcomes = run.result().outcomes
        assert any(not (o.kind is OutcomeKind.VALUE and values_equal(o.value, c.expected))
                   for o, c in zip(outcomes, task.all_tests)), task.task_id


def _run_seed_on(pool: Any, seed: Any, task: Any) -> Any:
    from spade.sandbox import Job

    tests = task.all_tests
    return pool.submit(Job(code=seed.reference_solution, entry_point=seed.entry_point,
                           inputs=tuple(tuple(c.args) for c in tests), time_limits=(2.0,) * len(tests),
                           memory_bytes=pool.cfg.memory_bytes, total_timeout=2.0 * len(tests) + 1.0,
                           max_output_bytes=pool.cfg.max_output_bytes))


def test_a_composed_ids_split_is_its_seeds() -> None:
    ids = [f"heldout/primes-{i:012x}" for i in range(40)]
    assert {heldout.split_of(i) for i in ids} == {"dev", "test"}
    assert all(heldout.split_of(f"{i}~v0123456789") == heldout.split_of(i) for i in ids)


def test_tasks_a_run_trained_on_are_left_out(small: dict[str, Any]) -> None:
    tasks = small["test"]
    trained = [replace(tasks[0], task_id="run-task-1"), replace(tasks[3], task_id="run-task-2")]
    kept, dropped = heldout.drop_trained(tasks, trained, 0.85)
    assert dropped == 2 and tasks[0] not in kept and tasks[3] not in kept and len(kept) == len(tasks) - 2


@pytest.mark.slow
def test_the_full_suite_is_large_in_distribution_and_the_same_from_the_cache_and_by_name(
        pool: Any, suite: dict[str, Any]) -> None:
    assert len(suite["test"]) >= 200  # one task is under 0.5 points, also after a run's own tasks are dropped
    assert len(suite["dev"]) >= 150  # the gate's paired test needs tasks to pair
    assert sum("composed" in t.tags for t in suite["test"]) >= 100
    tasks = suite["dev"] + suite["test"]
    assert len({t.family for t in tasks}) >= 20  # in distribution: the families the loop trains on
    results = pool.score_many([(t, t.reference_solution) for t in tasks])
    assert [t.task_id for t, r in zip(tasks, results) if r.score != 1.0] == []
    index = DedupIndex()
    for task in tasks:
        assert not index.check(task).duplicate, task.task_id
        index.add(task)
    assert suite["by_name"]["heldout"] == suite["test"]
    assert suite["by_name"]["heldout-dev"] == suite["dev"]
    assert in_distribution("heldout") and in_distribution("heldout-dev") and not in_distribution("builtin")


def test_the_config_selects_the_held_out_suite_and_refuses_to_gate_on_what_it_reports() -> None:
    cfg = load_config(None, {"eval.suite": "heldout"})
    assert (cfg.eval.suite, cfg.eval.gate_suite) == ("heldout", "heldout-dev")
    with pytest.raises(ConfigError, match="gate_suite"):
        load_config(None, {"eval.suite": "heldout-dev"})
    assert SpadeConfig().eval.gate_suite == "heldout-dev"
