"""`spade doctor RUN_DIR [--json]`: diagnose a run against the failure patterns of docs/method.md#failure-patterns.

In: a run directory. Out: each diagnosis with evidence and fix, on the terminal or as JSON; exit 0 when the run
shows none, 1 when it shows at least one (so scripts and CI can act on it).
"""

from __future__ import annotations

import json
from pathlib import Path

from spade.store import RunStore


def doctor_command(run_dir: str, as_json: bool) -> int:
    from rich.console import Console
    from rich.table import Table

    from spade.doctor.rules import diagnose
    from spade.store.views import load_view

    with RunStore(Path(run_dir), read_only=True) as store:
        view = load_view(store)
    checkup = diagnose(view)
    console = Console()
    if as_json:
        print(json.dumps({"run_dir": run_dir, "iterations": view.iterations, **checkup.to_dict()}, indent=2))
        return 1 if checkup.diagnoses else 0
    if not checkup.diagnoses:
        console.print(f"[green]✓[/green] {run_dir}: no failure pattern detected "
                      f"({view.iterations} iterations)")
    for d in checkup.diagnoses:
        t = Table(title=f"✗ {d.title}", show_header=False, title_justify="left", title_style="bold red")
        t.add_row("evidence", d.evidence)
        t.add_row("likely cause", d.cause)
        t.add_row("fix to try", d.fix)
        t.add_row("see", d.section)
        console.print(t)
    for note in checkup.not_judged:
        console.print(f"[dim]· not judged: {note}[/dim]")
    return 1 if checkup.diagnoses else 0
