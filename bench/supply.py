"""Benchmark: how many distinct tasks can generation supply before duplicates starve it?

Runs the loop's own task supply (spade.supply.supply: generate -> validate in the sandbox -> dedup against
everything accepted so far) for N iterations with the controller held at its initial difficulty, once with
generation.compose_on_duplicate off and once on, and prints the tasks accepted (and how many of them are
composed variants) against the duplicate rejections. No model is involved.
Run: .venv/bin/python bench/supply.py [--iterations 40]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from spade.config import SpadeConfig  # noqa: E402
from spade.curriculum import Controller  # noqa: E402
from spade.dedup import DedupIndex  # noqa: E402
from spade.generate.registry import resolve_families  # noqa: E402
from spade.sandbox import SandboxPool  # noqa: E402
from spade.store import IterationWrite, RunStore  # noqa: E402
from spade.supply.supply import TaskSupply  # noqa: E402


def supply(iterations: int, compose: bool) -> str:
    cfg = SpadeConfig.model_validate({"generation": {"compose_on_duplicate": compose}})
    families = [f.name for f in resolve_families([])]  # every Python function family, as before other kinds
    with tempfile.TemporaryDirectory() as run_dir, SandboxPool(cfg.executor) as pool:
        store = RunStore(run_dir, create=True)
        tasks_of = TaskSupply(cfg, store, pool, Controller(cfg.evolution, families), DedupIndex.from_tasks([]),
                              families)
        accepted = composed = duplicates = 0
        started = time.perf_counter()
        for i in range(iterations):
            w = IterationWrite(iteration=i)
            tasks = tasks_of.draw(w)
            accepted += len(tasks)
            composed += sum("composed" in t.tags for t in tasks)
            duplicates += sum(r.reason.startswith("duplicate") for r in w.rejections)
        store.close()
    requested = iterations * cfg.generation.tasks_per_iteration
    return (f"compose_on_duplicate={str(compose).lower()}: {requested} requested -> {accepted} accepted "
            f"({composed} composed), {duplicates} duplicate rejections, {time.perf_counter() - started:.0f} s")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--iterations", type=int, default=40)
    args = p.parse_args()
    for compose in (False, True):
        print(supply(args.iterations, compose), flush=True)


if __name__ == "__main__":
    main()
