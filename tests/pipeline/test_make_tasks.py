"""make_tasks: a procedural draft that validates but duplicates a known task comes back, next attempt, composed with
another family's transform (real sandbox, real dedup index)."""


import pytest

from spade.config import SpadeConfig
from spade.curriculum import Controller
from spade.dedup import DedupIndex
from spade.pipeline.stages import Engine, make_tasks
from spade.sandbox import SandboxPool
from spade.store import IterationWrite, RunStore

FAMILY = "list_aggregate"


def _engine(tmp_path, pool, compose: bool) -> Engine:
    cfg = SpadeConfig.model_validate({
        "generation": {"families": [FAMILY], "tasks_per_iteration": 4, "max_attempts": 2,
                       "compose_on_duplicate": compose},
        "executor": {"workers": 2},
    })
    store = RunStore(tmp_path / f"run-{compose}", create=True)
    return Engine(cfg=cfg, store=store, pool=pool, policy=None, trainer=None,
                  controller=Controller(cfg.evolution, [FAMILY]), dedup=DedupIndex.from_tasks([]), eval_tasks=[],
                  families=[FAMILY])


@pytest.fixture(scope="module")
def pool():
    with SandboxPool(SpadeConfig.model_validate({"executor": {"workers": 2}}).executor) as p:
        yield p


@pytest.mark.parametrize("compose", [True, False])
def test_duplicates_are_retried_as_composed_variants_of_the_same_family(tmp_path, pool, compose):
    e = _engine(tmp_path, pool, compose)
    first = make_tasks(e, IterationWrite(iteration=0))
    assert first
    again = IterationWrite(iteration=0)  # the same seeds draw the same drafts: every one is now a duplicate
    second = make_tasks(e, again)
    reasons = [r.reason for r in again.rejections]
    assert sum(r.startswith("duplicate") for r in reasons) >= len(first)
    composed = [t for t in second if "composed" in t.tags]
    if not compose:
        assert composed == []
        return
    assert composed, reasons
    duplicated = {r.draft_id for r in again.rejections if r.reason.startswith("duplicate")}
    for t in composed:
        assert t.family == FAMILY and t.provenance["source"] == "variant"
        assert t.provenance["seed_task"] in duplicated
        assert t.provenance["transform"]["family"] != FAMILY
