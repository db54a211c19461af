"""`spade report RUN_DIR [--out FILE]`: write the run's self-contained HTML report.

In: a run directory (its database). Out: report.html in the run directory unless --out says otherwise; exit 0.
"""

from __future__ import annotations

from pathlib import Path

from spade.store import RunStore

REPORT_NAME = "report.html"


def write_report(run_dir: str | Path, out: str | Path | None = None) -> Path:
    """Render the report of the run in `run_dir` to `out` (default RUN_DIR/report.html); return the path."""
    from spade.doctor.rules import diagnose
    from spade.report.html import render
    from spade.store.views import load_view

    with RunStore(Path(run_dir), read_only=True) as store:
        view = load_view(store)
    target = Path(out) if out else Path(run_dir) / REPORT_NAME
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(render(view, diagnose(view).diagnoses), encoding="utf-8")
    return target


def report_command(run_dir: str, out: str | None) -> int:
    path = write_report(run_dir, out)
    print(f"report written to {path}")
    return 0
