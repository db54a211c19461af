"""The loop's task supply draws tool-call families when named: drafts validated by their kind, duplicates rejected
and not composed (composition transforms Python code), no crash over several iterations."""

from __future__ import annotations

from spade.config import SpadeConfig
from spade.curriculum import Controller
from spade.dedup import DedupIndex
from spade.store import IterationWrite, RunStore
from spade.supply.supply import TaskSupply


def test_the_supply_draws_tool_call_tasks_and_leaves_their_duplicates_uncomposed(pool, tmp_path):
    families = ["tool_call_kv", "tool_call_weather"]
    cfg = SpadeConfig.model_validate({"generation": {"families": families, "tasks_per_iteration": 12,
                                                     "compose_on_duplicate": True}})
    store = RunStore(tmp_path / "run", create=True)
    supply = TaskSupply(cfg=cfg, store=store, pool=pool, controller=Controller(cfg.evolution, families),
                        dedup=DedupIndex.from_tasks([]), families=families)
    drawn, duplicates = [], 0
    for i in range(3):
        w = IterationWrite(iteration=i)
        drawn += [t for t in supply.draw(w) if t not in drawn]
        duplicates += sum(r.reason.startswith("duplicate") for r in w.rejections)
    store.close()
    assert drawn and all(t.kind == "tool_call" and t.family in families for t in drawn)
    assert duplicates > 0 and not any("composed" in t.tags for t in drawn)
