"""The loop's task supply draws repair families when named: drafts validated by the repair kind, stored as repair
tasks, their duplicates not composed (composition transforms Python function tasks), over several iterations."""

from __future__ import annotations

from spade.config import SpadeConfig
from spade.curriculum import Controller
from spade.dedup import DedupIndex
from spade.store import IterationWrite, RunStore
from spade.supply.supply import TaskSupply


def test_the_supply_draws_repair_tasks(pool, tmp_path):
    families = ["repair_operator", "repair_multi"]
    cfg = SpadeConfig.model_validate({"generation": {"families": families, "tasks_per_iteration": 4,
                                                     "compose_on_duplicate": True}})
    store = RunStore(tmp_path / "run", create=True)
    supply = TaskSupply(cfg=cfg, store=store, pool=pool, controller=Controller(cfg.evolution, families),
                        dedup=DedupIndex.from_tasks([]), families=families)
    drawn = []
    for i in range(2):
        w = IterationWrite(iteration=i)
        drawn += [t for t in supply.draw(w) if t not in drawn]
    store.close()
    assert len(drawn) >= 3 and all(t.kind == "repair" and t.family in families for t in drawn)
    assert all(t.params["buggy_code"] and "composed" not in t.tags for t in drawn)
