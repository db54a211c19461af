"""`spade variants SEEDS.jsonl`: seed-task variants (docs/method.md#seed-variants-and-composition), validated by
execution, written as a task file.

Per seed, variant 0 is renamed with fresh inputs; with `compose` (the default) the others also compose a step
from another family (spade.generate.compose). A composed variant must validate like any task and must also
change the seed's answer on at least one of its tests, else it is rejected as transform_no_effect.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from rich.console import Console

from spade.config import SpadeConfig
from spade.errors import TaskFormatError
from spade.generate.seeds import check_seeds
from spade.generate.variants import seed_variant
from spade.taskio import load_tasks, task_to_dict


def variants_command(seeds_path: str, count: int, out: str, cfg: SpadeConfig, compose: bool = True) -> int:
    from spade.kinds import validate_drafts
    from spade.sandbox import SandboxPool
    from spade.validate.effect import require_effect

    if count < 1:
        raise TaskFormatError(f"--count = {count}: give at least 1 variant per seed task")
    seeds = check_seeds(load_tasks(seeds_path), seeds_path)
    gen = cfg.generation
    drafts = [seed_variant(t, cfg.run.seed, i, gen.public_tests, gen.hidden_tests, compose=compose and i > 0)
              for t in seeds for i in range(count)]
    with SandboxPool(cfg.executor) as pool:
        outcomes = validate_drafts(drafts, pool, gen)
        outcomes = require_effect(outcomes, {t.task_id: t for t in seeds}, pool, gen)
    accepted = {o.task.task_id: o.task for o in outcomes if o.accepted and o.task is not None}
    step = {d.task_id: d.params["transform"]["key"] for d in drafts if "transform" in d.params}
    reasons = Counter(o.reasons[0] + (f" ({step[o.task_id]})" if o.task_id in step else "")
                      for o in outcomes if not o.accepted)
    Path(out).write_text("".join(json.dumps(task_to_dict(t)) + "\n" for t in accepted.values()))
    n_composed = sum(1 for tid in accepted if tid in step)
    summary = f"{len(accepted)} of {len(drafts)} variants accepted ({n_composed} of {len(step)} composed) → {out}"
    rejected = f"; rejected: {dict(sorted(reasons.items()))}" if reasons else ""
    Console().print(summary + rejected, markup=False, highlight=False)
    return 0 if accepted else 1
