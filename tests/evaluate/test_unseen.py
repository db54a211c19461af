"""The unseen-family protocol: families withheld from generation (generation.withhold_families) are never drawn
nor composed with, and the heldout-unseen suite holds the held-out tasks of exactly those families."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from spade.config import SpadeConfig, load_config
from spade.curriculum import Controller
from spade.dedup import DedupIndex
from spade.errors import ConfigError
from spade.evaluate import heldout
from spade.evaluate.suites import in_distribution, load_suite
from spade.generate.registry import resolve_families
from spade.generate.variants import seed_variant
from spade.store import RunStore
from spade.supply.supply import TaskSupply
from spade.taskio import task_to_dict

FEW = ("dict_ops", "list_transform", "primes", "rotate_list")
WITHHELD = ["primes", "rotate_list"]


def test_withheld_families_are_never_drawn(tmp_path):
    cfg = SpadeConfig.model_validate({"generation": {"withhold_families": ["primes", "sorting", "digits"]}})
    families = [f.name for f in resolve_families(cfg.generation.families, cfg.generation.kinds,
                                                 cfg.generation.withhold_families)]
    assert families and not set(families) & {"primes", "sorting", "digits"}
    supply = TaskSupply(cfg, RunStore(tmp_path, create=True), None, Controller(cfg.evolution, families),
                        DedupIndex(), families)
    drawn = {d.family for d in supply._procedural(600, 0, random.Random(2))}
    assert drawn == set(families)  # every other family still drawn


def test_no_composed_step_comes_from_a_withheld_family():
    from spade.evaluate.suites import load_suite as suite

    seed = next(t for t in suite("builtin") if t.entry_point == "square_all")  # list[int] -> list[int]: many fit
    steps = {seed_variant(seed, 0, i, compose=True).params["transform"]["family"] for i in range(1, 40)}
    assert "sorting" in steps and "list_transform" in steps
    kept = {seed_variant(seed, 0, i, compose=True, withhold=("sorting", "list_transform")).params["transform"]["family"]
            for i in range(1, 40)}
    assert kept and not kept & {"sorting", "list_transform"}


def test_an_unknown_withheld_family_is_a_one_line_error():
    with pytest.raises(ConfigError) as err:
        load_config(None, {"generation.withhold_families": ["primez"]})
    message = str(err.value)
    assert "withhold_families" in message and "primez" in message and "\n" not in message
    with pytest.raises(ConfigError, match="both in generation.families"):
        load_config(None, {"generation.families": ["primes"], "generation.withhold_families": ["primes"]})


@pytest.fixture(scope="module")
def small_cache(pool: Any, tmp_path_factory: pytest.TempPathFactory):
    """The held-out suite's recipe on four families, written as the suite's cache in a private cache dir."""
    mp = pytest.MonkeyPatch()
    mp.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
    try:
        tasks = heldout.build(pool, FEW, draws=30)
        path = heldout.cache_path()
        path.parent.mkdir(parents=True)
        path.write_text("".join(json.dumps(task_to_dict(t)) + "\n" for t in tasks))
        yield tasks
    finally:
        mp.undo()


def test_heldout_unseen_holds_the_withheld_families_tasks_and_only_those(small_cache):
    unseen = load_suite("heldout-unseen", WITHHELD)
    assert {t.family for t in unseen} == set(WITHHELD)
    expected = {t.task_id for t in small_cache if t.family in WITHHELD}
    assert {t.task_id for t in unseen} == expected  # both splits: no run trains on these families
    assert {t.provenance["split"] for t in unseen} == {"dev", "test"}
    assert not in_distribution("heldout-unseen")  # reserved from training like any foreign suite


def test_heldout_unseen_without_withheld_families_says_which_key_to_set():
    with pytest.raises(ConfigError, match="generation.withhold_families"):
        load_suite("heldout-unseen")
