"""The mix of task kinds in the loop's supply: with generation.families empty, a kind is drawn by its weight, then
a family of it; a mix of Python functions only draws exactly as before kinds existed."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from spade.config import SpadeConfig
from spade.curriculum import Controller
from spade.dedup import DedupIndex
from spade.generate.procedural import draft_task
from spade.generate.registry import get_family, resolve_families
from spade.pipeline.stages import Engine, make_tasks
from spade.sandbox import SandboxPool
from spade.store import IterationWrite, RunStore
from spade.supply.supply import TaskSupply


@pytest.fixture(scope="module")
def pool():
    with SandboxPool(SpadeConfig.model_validate({"executor": {"workers": 2}}).executor) as p:
        yield p


def _supply(tmp_path, overrides: dict, pool=None) -> TaskSupply:
    cfg = SpadeConfig.model_validate({"generation": overrides, "executor": {"workers": 2},
                                      "selfplay": {"enabled": False}})
    families = [f.name for f in resolve_families(cfg.generation.families, cfg.generation.kinds)]
    store = RunStore(tmp_path, create=True)
    return TaskSupply(cfg, store, pool, Controller(cfg.evolution, families), DedupIndex(), families)


def test_families_of_every_weighted_kind_are_drawn_and_only_those():
    kinds = {f.kind for f in resolve_families([], {"python_function": 1.0, "program": 2.0})}
    assert kinds == {"python_function", "program"}
    assert {f.kind for f in resolve_families([], {"python_function": 0.0, "program": 1.0})} == {"program"}
    assert {f.kind for f in resolve_families([])} == {"python_function"}


def test_a_kind_is_drawn_by_its_weight_then_a_family_within_it(tmp_path):
    supply = _supply(tmp_path, {"kinds": {"python_function": 1.0, "program": 3.0}})
    drafts = supply._procedural(400, 0, random.Random(0))
    share = Counter(d.kind for d in drafts)["program"] / len(drafts)
    assert share == pytest.approx(0.75, abs=0.07)
    assert len({d.family for d in drafts if d.kind == "program"}) == 5


def test_python_functions_alone_draw_exactly_as_a_run_without_kinds(tmp_path):
    supply = _supply(tmp_path, {"kinds": {"python_function": 1.0}})
    drafts = supply._procedural(30, 0, random.Random(5))
    rng, names = random.Random(5), sorted(supply.families)
    weights = supply.controller.family_weights()
    before = [draft_task(rng.choices(names, weights=[weights.get(n, 1.0) for n in names])[0], 0.3, 0, slot, 3, 5)
              for slot in range(30)]
    assert drafts == before


def test_named_families_ignore_the_kind_weights(tmp_path):
    supply = _supply(tmp_path, {"families": ["program_numbers", "sorting"], "kinds": {"python_function": 1.0}})
    assert {d.family for d in supply._procedural(40, 0, random.Random(1))} == {"program_numbers", "sorting"}


def test_an_iteration_of_a_mixed_run_accepts_tasks_of_both_kinds(tmp_path, pool):
    cfg = SpadeConfig.model_validate({"generation": {"kinds": {"python_function": 1.0, "program": 1.0},
                                                     "tasks_per_iteration": 8}, "executor": {"workers": 2},
                                      "selfplay": {"enabled": False}})
    families = [f.name for f in resolve_families(cfg.generation.families, cfg.generation.kinds)]
    e = Engine(cfg=cfg, store=RunStore(tmp_path, create=True), pool=pool, policy=None, trainer=None,
               controller=Controller(cfg.evolution, families), dedup=DedupIndex(), eval_tasks=[], families=families)
    tasks = make_tasks(e, IterationWrite(iteration=0))
    assert {t.kind for t in tasks} == {"python_function", "program"}
    assert all(get_family(t.family).kind == t.kind for t in tasks)
