"""`spade variants SEEDS.jsonl`: seed-task variants (§8.1), validated by execution, written as a task file."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console

from spade.config import SpadeConfig
from spade.errors import TaskFormatError
from spade.generate.variants import seed_variant
from spade.taskio import load_tasks, task_to_dict


def variants_command(seeds_path: str, count: int, out: str, cfg: SpadeConfig) -> int:
    from spade.sandbox import SandboxPool
    from spade.validate.dynamic import validate_drafts

    if count < 1:
        raise TaskFormatError(f"--count = {count}: give at least 1 variant per seed task")
    seeds = load_tasks(seeds_path)
    missing = [t.task_id for t in seeds if not t.reference_solution]
    if missing:
        raise TaskFormatError(f"{seeds_path}: task {missing[0]} has no reference_solution; variants need one")
    gen = cfg.generation
    drafts = [seed_variant(t, cfg.run.seed, i, gen.public_tests, gen.hidden_tests) for t in seeds for i in range(count)]
    with SandboxPool(cfg.executor) as pool:
        outcomes = validate_drafts(drafts, pool, gen)
    accepted = {o.task.task_id: o.task for o in outcomes if o.accepted}
    reasons: dict[str, int] = {}
    for o in outcomes:
        if not o.accepted:
            reasons[o.reasons[0]] = reasons.get(o.reasons[0], 0) + 1
    Path(out).write_text("".join(json.dumps(task_to_dict(t)) + "\n" for t in accepted.values()))
    Console().print(f"{len(accepted)} of {len(drafts)} variants accepted → {out}"
                    + (f"; rejected: {reasons}" if reasons else ""))
    return 0 if accepted else 1
