"""Benchmark: does a family's difficulty knob make tasks harder for the embedded policy, per task kind?

For each task kind asked for (--kinds), each of its procedural families (or those named) and each of 5 difficulty
levels, draft tasks, validate them in the sandbox (by their kind), sample completions from the embedded SmolLM2
policy and grade them on the loop's own grading path (the kind's extraction, execution and judging); print, per
kind, the pass rate per family and level with the kind's average per level (which should fall as difficulty
rises), then the claimed-vs-measured calibration per family and per kind. Slow: minutes to an hour, by the arguments.
Run: .venv/bin/python bench/difficulty.py [--kinds python_function,program] [--tasks 1] [--samples 4]
     [--families a,b] [--threads 2]
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from spade.config import ExecutorConfig, GenerationConfig, RewardConfig, SamplingConfig  # noqa: E402
from spade.curriculum.calibration import TaskMeasure, calibration_table  # noqa: E402
from spade.generate.procedural import draft_task  # noqa: E402
from spade.generate.registry import family_names, get_family  # noqa: E402
from spade.kinds import KINDS, validate_drafts  # noqa: E402
from spade.pipeline.status import calibration_table_view  # noqa: E402
from spade.policy.embedded import EmbeddedPolicy  # noqa: E402
from spade.records import PYTHON_FUNCTION  # noqa: E402
from spade.rollout import Grader  # noqa: E402
from spade.sandbox import SandboxPool  # noqa: E402

LEVELS = (0.0, 0.25, 0.5, 0.75, 1.0)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--kinds", default=PYTHON_FUNCTION, help=f"comma-separated task kinds (default {PYTHON_FUNCTION})")
    p.add_argument("--tasks", type=int, default=1, help="tasks per family and level")
    p.add_argument("--samples", type=int, default=4)
    p.add_argument("--families", default="", help="comma-separated; default every family of the kinds")
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--max-new-tokens", type=int, default=128)
    p.add_argument("--seed", type=int, default=7)
    args = p.parse_args()
    kinds = [k for k in args.kinds.split(",") if k]
    for kind in kinds:
        KINDS.get(kind)  # an unknown kind is refused with the known ones listed
    families = [f for f in args.families.split(",") if f] or [f for f in family_names() if get_family(f).kind in kinds]
    gen = GenerationConfig()
    drafts = [draft_task(f, level, args.seed, i, gen.public_tests, gen.hidden_tests)
              for f in families for level in LEVELS for i in range(args.tasks)]
    policy = EmbeddedPolicy(SamplingConfig(threads=args.threads, max_new_tokens=args.max_new_tokens))
    with SandboxPool(ExecutorConfig()) as pool:
        tasks = [o.task for o in validate_drafts(drafts, pool, gen) if o.accepted and o.task is not None]
        completions = policy.sample(tasks, args.samples, seed=args.seed)
        flat_tasks = [t for t, cs in zip(tasks, completions) for _ in cs]
        flat = [c for cs in completions for c in cs]
        rollouts = Grader(pool, RewardConfig()).grade(flat_tasks, flat, ids=[str(i) for i in range(len(flat))])
    cells: dict[tuple[str, float], list[bool]] = {}
    per_task: dict[str, list[bool]] = {}
    for task, rollout in zip(flat_tasks, rollouts):
        cells.setdefault((task.family, task.difficulty), []).append(rollout.passed)
        per_task.setdefault(task.task_id, []).append(rollout.passed)
    for kind in kinds:
        of_kind = [f for f in families if get_family(f).kind == kind]
        n_tasks = sum(1 for t in tasks if t.kind == kind)
        n_drafts = sum(1 for d in drafts if d.kind == kind)
        print_table(kind, of_kind, cells, policy.last_tokens_per_s, n_tasks, n_drafts)
    print_calibration(tasks, per_task)


def print_calibration(tasks: list, per_task: dict[str, list[bool]]) -> None:
    """Claimed difficulty against measured (1 - pass rate), per family and over each kind's mix."""
    measures = [TaskMeasure(group, t.difficulty, len(per_task[t.task_id]), sum(per_task[t.task_id]))
                for t in tasks for group in (t.family, f"all {t.kind}")]
    Console().print(calibration_table_view([asdict(r) for r in calibration_table(measures)]))


def print_table(kind: str, families: list[str], cells: dict, tok_s: float, n_tasks: int, n_drafts: int) -> None:
    table = Table(title=f"{kind}: pass rate by family and difficulty ({n_tasks}/{n_drafts} drafts validated, "
                        f"{tok_s:.0f} tok/s)")
    table.add_column("family")
    for level in LEVELS:
        table.add_column(f"{level:.2f}", justify="right")
    for fam in families:
        row = [fam]
        for level in LEVELS:
            wins = cells.get((fam, level), [])
            row.append(f"{sum(wins) / len(wins):.2f}" if wins else "-")
        table.add_row(*row)
    mix = []
    for level in LEVELS:
        wins = [w for (f, lv), ws in cells.items() if lv == level and f in families for w in ws]
        mix.append(f"{sum(wins) / len(wins):.2f}" if wins else "-")
    table.add_row(f"[bold]{kind} (all)", *mix)
    Console().print(table)


if __name__ == "__main__":
    main()
