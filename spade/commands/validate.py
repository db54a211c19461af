"""`spade validate FILE`: validate tasks given in SPADE's task schema and print a verdict per task.

In: a .json/.jsonl path and the config. Out: a rich table (task, verdict, reasons), the counts, and the exit
code: 0 when every task is accepted, 1 otherwise. Tasks with a reference are run in the sandbox and must
reproduce their stated expected values; tasks without one get the static checks only, and the table says so.
"""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from spade.config import SpadeConfig
from spade.validate.outcome import ValidationOutcome


def validate_command(path: str, cfg: SpadeConfig, console: Console | None = None) -> int:
    from spade.kinds import validate_tasks  # each task by its own kind's validator
    from spade.sandbox import (
        SandboxPool,  # the sandbox starts workers; only pay for it when a command runs
    )
    from spade.taskio import load_tasks

    console = console or Console()
    tasks = load_tasks(path)
    if any(t.reference_solution for t in tasks):
        with SandboxPool(cfg.executor) as pool:
            outcomes = validate_tasks(tasks, pool, cfg.generation)
    else:
        outcomes = validate_tasks(tasks, None, cfg.generation)
    console.print(_table(outcomes))
    accepted = sum(o.accepted for o in outcomes)
    static_only = sum(1 for o in outcomes if o.accepted and any(n.startswith("static_only") for n in o.notes))
    mismatches = sum(1 for o in outcomes if "expected_mismatch" in o.reasons)
    console.print(f"{accepted} accepted, {len(outcomes) - accepted} rejected of {len(outcomes)} tasks"
                  f" ({static_only} checked statically only: no reference_solution;"
                  f" {mismatches} with expected values the reference does not reproduce)")
    return 0 if accepted == len(outcomes) else 1


def _table(outcomes: list[ValidationOutcome]) -> Table:
    table = Table(title="validation")
    table.add_column("task")
    table.add_column("verdict")
    table.add_column("reasons")
    for o in outcomes:
        if o.accepted:
            verdict = "[green]accepted[/green]"
            why = "; ".join(o.notes) or (f"mutants caught {o.kill_ratio:.2f}" if o.kill_ratio is not None else "")
        else:
            verdict = "[red]rejected[/red]"
            why = "; ".join(f"{code}: {detail}" for code, detail in zip(o.reasons, o.details))
        table.add_row(o.task_id, verdict, why)
    return table
