"""Benchmark: does a family's difficulty knob make tasks harder for the embedded policy?

For each procedural family and each of 5 difficulty levels, draft tasks, validate them in the sandbox, sample
completions from the embedded SmolLM2 policy and score them; print the pass rate per family and level, and the
mix average per level (which should fall as difficulty rises). Slow: minutes to an hour, by the arguments.
Run: .venv/bin/python bench/difficulty.py [--tasks 1] [--samples 4] [--families a,b] [--threads 2]
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from spade.config import ExecutorConfig, GenerationConfig, SamplingConfig  # noqa: E402
from spade.curriculum.calibration import TaskMeasure, calibration_table  # noqa: E402
from spade.generate.procedural import draft_task  # noqa: E402
from spade.generate.registry import family_names  # noqa: E402
from spade.kinds.python_function.extract import extract_code  # noqa: E402
from spade.pipeline.status import calibration_table_view  # noqa: E402
from spade.policy.embedded import EmbeddedPolicy  # noqa: E402
from spade.sandbox import SandboxPool  # noqa: E402
from spade.validate.dynamic import validate_drafts  # noqa: E402

LEVELS = (0.0, 0.25, 0.5, 0.75, 1.0)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--tasks", type=int, default=1, help="tasks per family and level")
    p.add_argument("--samples", type=int, default=4)
    p.add_argument("--families", default="", help="comma-separated; default every family")
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--max-new-tokens", type=int, default=128)
    p.add_argument("--seed", type=int, default=7)
    args = p.parse_args()
    families = [f for f in args.families.split(",") if f] or family_names()
    gen = GenerationConfig()
    drafts = [draft_task(f, level, args.seed, i, gen.public_tests, gen.hidden_tests)
              for f in families for level in LEVELS for i in range(args.tasks)]
    policy = EmbeddedPolicy(SamplingConfig(threads=args.threads, max_new_tokens=args.max_new_tokens))
    with SandboxPool(ExecutorConfig()) as pool:
        tasks = [o.task for o in validate_drafts(drafts, pool, gen) if o.accepted]
        completions = policy.sample(tasks, args.samples, seed=args.seed)
        items = [(t, extract_code(c.text, t.entry_point)) for t, cs in zip(tasks, completions) for c in cs]
        results = pool.score_many(items)
    cells: dict[tuple[str, float], list[bool]] = {}
    per_task: dict[str, list[bool]] = {}
    for (task, _), result in zip(items, results):
        cells.setdefault((task.family, task.difficulty), []).append(result.status.value == "passed")
        per_task.setdefault(task.task_id, []).append(result.status.value == "passed")
    print_table(families, cells, policy.last_tokens_per_s, len(tasks), len(drafts))
    print_calibration(tasks, per_task)


def print_calibration(tasks: list, per_task: dict[str, list[bool]]) -> None:
    """Claimed difficulty against measured (1 - pass rate), per family and over the whole mix."""
    measures = [TaskMeasure(group, t.difficulty, len(per_task[t.task_id]), sum(per_task[t.task_id]))
                for t in tasks for group in (t.family, "all (mix)")]
    Console().print(calibration_table_view([asdict(r) for r in calibration_table(measures)]))


def print_table(families: list[str], cells: dict, tok_s: float, n_tasks: int, n_drafts: int) -> None:
    table = Table(title=f"pass rate by family and difficulty ({n_tasks}/{n_drafts} drafts validated, "
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
        wins = [w for (f, lv), ws in cells.items() if lv == level for w in ws]
        mix.append(f"{sum(wins) / len(wins):.2f}" if wins else "-")
    table.add_row("[bold]mix", *mix)
    Console().print(table)


if __name__ == "__main__":
    main()
