"""generation.seeds: a user's seed tasks feed `spade run`'s supply with validated variants (docs/method.md#seed-variants-and-composition)."""

from __future__ import annotations

import json

import pytest

from spade.config import SpadeConfig, load_config
from spade.curriculum import Controller
from spade.dedup import DedupIndex
from spade.errors import ConfigError, TaskFormatError
from spade.evaluate.suites import load_suite
from spade.generate.seeds import load_seeds
from spade.pipeline.stages import Engine, make_tasks
from spade.sandbox import SandboxPool
from spade.store import IterationWrite, RunStore
from spade.taskio import task_to_dict

SEEDS = ("builtin/rotate_right", "builtin/caesar_shift", "builtin/merge_sorted")


@pytest.fixture(scope="module")
def pool():
    with SandboxPool(SpadeConfig.model_validate({"executor": {"workers": 2}}).executor) as p:
        yield p


def _seed_file(path):
    tasks = [t for t in load_suite("builtin") if t.task_id in SEEDS]
    path.write_text("".join(json.dumps(task_to_dict(t)) + "\n" for t in tasks))
    return path


def test_validated_variants_of_the_seed_file_join_an_iterations_tasks(tmp_path, pool):
    seeds = _seed_file(tmp_path / "seeds.jsonl")
    cfg = SpadeConfig.model_validate({"generation": {"families": ["primes"], "tasks_per_iteration": 8,
                                                     "seeds": str(seeds), "seed_share": 0.5},
                                      "executor": {"workers": 2}})
    e = Engine(cfg=cfg, store=RunStore(tmp_path / "run", create=True), pool=pool, policy=None, trainer=None,
               controller=Controller(cfg.evolution, ["primes"]), dedup=DedupIndex(), eval_tasks=[],
               families=["primes"])
    tasks = make_tasks(e, IterationWrite(iteration=0))
    from_seeds = [t for t in tasks if t.provenance.get("seed_task") in SEEDS]
    assert len(from_seeds) >= 2
    assert all(t.reference_solution and t.hidden_test_cases for t in from_seeds)  # validated: expected values set
    assert any(t.family == "primes" for t in tasks)  # the families still fill the rest
    assert {t.entry_point for t in from_seeds}.isdisjoint({"rotate_right", "caesar_shift", "merge_sorted"})


def test_a_run_without_seeds_draws_no_variant(tmp_path, pool):
    cfg = SpadeConfig.model_validate({"generation": {"families": ["primes"], "tasks_per_iteration": 4},
                                      "executor": {"workers": 2}})
    e = Engine(cfg=cfg, store=RunStore(tmp_path, create=True), pool=pool, policy=None, trainer=None,
               controller=Controller(cfg.evolution, ["primes"]), dedup=DedupIndex(), eval_tasks=[],
               families=["primes"])
    assert not [t for t in make_tasks(e, IterationWrite(iteration=0)) if t.family is None]


def test_a_missing_seed_file_or_a_seed_without_reference_is_a_one_line_error(tmp_path):
    with pytest.raises(ConfigError, match="generation.seeds"):
        load_config(None, {"generation.seeds": str(tmp_path / "absent.jsonl")})
    bad = tmp_path / "bad.jsonl"
    row = task_to_dict(load_suite("builtin")[0])
    row["reference_solution"] = None
    bad.write_text(json.dumps(row) + "\n")
    with pytest.raises(TaskFormatError, match="has no reference_solution"):
        load_seeds(bad)
