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


def _engine(tmp_path, pool, compose: bool, share: float = 0.0, families=(FAMILY,)) -> Engine:
    cfg = SpadeConfig.model_validate({
        "generation": {"families": list(families), "tasks_per_iteration": 4, "max_attempts": 2,
                       "compose_on_duplicate": compose, "compose_share": share},
        "executor": {"workers": 2},
    })
    store = RunStore(tmp_path / f"run-{compose}-{share}", create=True)
    return Engine(cfg=cfg, store=store, pool=pool, policy=None, trainer=None,
                  controller=Controller(cfg.evolution, list(families)), dedup=DedupIndex.from_tasks([]),
                  eval_tasks=[], families=list(families))


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


@pytest.mark.parametrize("share", [0.0, 1.0])
def test_a_share_of_fresh_tasks_is_composed_from_the_first_draw(tmp_path, pool, share):
    e = _engine(tmp_path, pool, compose=False, share=share)
    w = IterationWrite(iteration=0)
    tasks = make_tasks(e, w)
    assert len(tasks) >= 2, [r.reason for r in w.rejections]
    composed = [t for t in tasks if "composed" in t.tags]
    if share == 0.0:
        assert composed == []
        return
    # Nothing was a duplicate yet: every composed task came from the share, and most slots compose.
    assert len(composed) >= len(tasks) - 1, [r.reason for r in w.rejections]
    stored = {t.task.task_id for t in w.tasks}
    for t in composed:
        assert t.family == FAMILY and t.provenance["transform"]["family"] != FAMILY
        assert t.provenance["seed_task"] not in stored  # the plain seed is not trained on as well
        assert t.task_id in stored and e.dedup.check(t).duplicate


def test_the_share_composes_the_same_plain_draws_it_would_have_made(tmp_path, pool):
    """Marking slots draws from its own stream: the plain tasks behind a run with a share are the run's without."""
    families = (FAMILY, "string_transform", "primes", "list_transform")
    plain = make_tasks(_engine(tmp_path / "a", pool, False, 0.0, families), IterationWrite(iteration=0))
    mixed = make_tasks(_engine(tmp_path / "b", pool, False, 0.5, families), IterationWrite(iteration=0))
    assert len(plain) == 4 and any("composed" in t.tags for t in mixed)
    behind = {t.provenance.get("seed_task", t.task_id) for t in mixed}
    assert behind == {t.task_id for t in plain}


def test_each_stage_is_timed_in_wall_and_in_cpu_seconds_and_both_reach_the_metrics(tmp_path, pool):
    """A sleep costs wall time and (next to) no CPU time; both kinds, per stage, reach the iteration's metrics."""
    import time

    from spade.pipeline.stages import metrics
    from spade.timing import stamp

    e = _engine(tmp_path, pool, compose=False)
    w = IterationWrite(iteration=0)
    assert make_tasks(e, w)
    started = stamp()
    time.sleep(0.3)
    e.timed("idle", started)
    assert e.timings["idle"] >= 0.3 and e.cpu_timings["idle"] < 0.1
    m = metrics(e, w, [])
    assert m["seconds/idle"] == e.timings["idle"] and m["cpu_seconds/idle"] == e.cpu_timings["idle"]
    assert m["cpu_seconds/generate"] == e.cpu_timings["generate"] > 0
