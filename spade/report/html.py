"""Assemble the run report: one self-contained HTML file, figures inlined as base64 PNG, no scripts.

In: a `RunView` (and optionally the doctor's diagnoses). Out: the HTML text. Nothing in it loads from the
network or runs JavaScript, so it opens anywhere, offline, and renders with no console errors.
"""

from __future__ import annotations

import base64
import html
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from spade.audit import FINDINGS
from spade.curriculum.by_kind import COLUMNS, kind_rows, row_cells
from spade.curriculum.calibration import calibration
from spade.report.plots import FIGURES, to_png
from spade.store.views import RunView

if TYPE_CHECKING:
    from spade.doctor.rules import Diagnosis

STYLE = """
body { font-family: -apple-system, 'DejaVu Sans', Arial, sans-serif; margin: 24px auto; max-width: 1160px;
       color: #1d2330; background: #fff; }
h1 { font-size: 26px; margin-bottom: 4px; } h2 { font-size: 19px; border-bottom: 1px solid #dde; padding-bottom: 4px; }
.sub { color: #667; margin-top: 0; } .empty { color: #889; font-style: italic; }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 14px; }
td, th { border: 1px solid #dde; padding: 4px 10px; text-align: left; } th { background: #f3f4f8; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
img { max-width: 100%; border: 1px solid #eef; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr)); gap: 4px 24px; }
.bad { color: #b3261e; font-weight: bold; } .ok { color: #1e7b34; font-weight: bold; }
"""


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td class='num'>{_e(c)}</td>" if isinstance(c, (int, float)) else f"<td>{_e(c)}</td>"
                         for c in row) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _last(view: RunView, name: str) -> str:
    series = view.series(name)
    return f"{series[-1][1]:.3f}" if series else "—"


def summary_section(view: RunView) -> str:
    rollouts = len(view.rewards)
    passed = sum(t.passed for t in view.tasks)
    attempts = sum(t.attempts for t in view.tasks)
    rows = [
        ("iterations committed", view.iterations),
        ("tasks accepted", view.accepted_tasks),
        ("drafts rejected", sum(view.rejections.values())),
        ("rollouts", rollouts),
        ("pass rate (all rollouts on generated tasks)", f"{passed / attempts:.3f}" if attempts else "—"),
        ("mean reward (all rollouts)", f"{sum(view.rewards) / rollouts:.3f}" if rollouts else "—"),
        ("pass rate, last iteration", _last(view, "pass_rate")),
        ("evaluations", len(view.evals)),
        ("rollbacks", len(view.rollbacks)),
        ("audit records", view.audited),
        ("audit records with screening findings", sum(view.screen_findings.values())),
    ]
    return "<h2>Summary</h2>" + _table(("", "value"), rows)


def figure_section(view: RunView) -> str:
    parts = []
    for key, title, draw in FIGURES:
        fig = draw(view)
        if fig is None:
            body = "<p class='empty'>no data in this run yet</p>"
        else:
            data = base64.b64encode(to_png(fig)).decode("ascii")
            body = f"<img alt='{_e(title)}' src='data:image/png;base64,{data}'>"
        parts.append(f"<section><h2 id='{key}'>{_e(title)}</h2>{body}</section>")
    return "<div class='grid'>" + "".join(parts) + "</div>"


def rollback_section(view: RunView) -> str:
    if not view.rollbacks:
        return "<h2>Rollbacks</h2><p class='empty'>none recorded</p>"
    rows = [(it, reason) for it, reason in view.rollbacks]
    return "<h2>Rollbacks</h2><p>Marked as red dashed lines on the timelines above.</p>" + \
        _table(("iteration", "reason"), rows)


def audit_section(view: RunView) -> str:
    rows = [(code, FINDINGS.get(code, ""), n) for code, n in view.screen_findings.items()]
    intro = f"<p>{view.audited} audit records (generated tasks and candidates, each with its source).</p>"
    if not rows:
        screening = f"<h2>Audit screening</h2>{intro}<p class='ok'>no screening findings</p>"
    else:
        screening = f"<h2>Audit screening</h2>{intro}" + _table(("finding", "meaning", "records"), rows)
    events = [(event, n) for event, n in view.sandbox_events.items()]
    observed = ("<h2>Sandbox events</h2><p>What the sandbox observed while candidates ran (interference, limits "
                "reached, internal errors).</p>")
    if not events:
        return screening + observed + "<p class='ok'>no events</p>"
    return screening + observed + _table(("event", "candidates"), events)


def diagnosis_section(diagnoses: Sequence[Diagnosis] | None) -> str:
    if diagnoses is None:
        return ""
    if not diagnoses:
        return "<h2>Doctor</h2><p class='ok'>no failure pattern detected</p>"
    rows = [(d.title, d.evidence, d.fix) for d in diagnoses]
    return "<h2>Doctor</h2><p class='bad'>failure patterns detected</p>" + _table(("pattern", "evidence", "fix"), rows)


def calibration_section(view: RunView) -> str:
    """Claimed vs measured difficulty per family and per proposer (measured = 1 - the policy's pass rate)."""
    rows = [(r.group, r.tasks, r.rollouts, f"{r.mae:.3f}", f"{r.bias:+.3f}",
             "—" if r.rank_corr is None else f"{r.rank_corr:+.2f}") for r in calibration(view.tasks)]
    if not rows:
        return ""
    intro = ("<p>Error between each task's claimed difficulty and its measured one (1 - pass rate). Bias > 0: "
             "harder than claimed. Rank correlation near +1: a higher claim does mean a harder task.</p>")
    return "<h2>Difficulty calibration</h2>" + intro + _table(
        ("group", "tasks", "rollouts", "mean abs. error", "bias", "rank corr."), rows)


def kind_section(view: RunView) -> str:
    """Pass rate and difficulty per task kind, then per family of it."""
    targets = {name: series[-1][1] for name in view.families() if (series := view.metrics[f"difficulty/{name}"])}
    rows = kind_rows(view.tasks, targets)
    if not rows:
        return ""
    intro = ("<p>Share of rollouts that passed, mean claimed difficulty of the tasks attempted, and the "
             "controller's target difficulty now (a kind's: the mean over its families).</p>")
    shown = [r for r in rows if r.family is None or r.tasks]
    cells = [(r.kind if r.family is None else f"{r.kind} / {r.family}", *row_cells(r)[1:]) for r in shown]
    idle = sorted(r.family for r in rows if r.family is not None and not r.tasks)
    note = (f"<p class='sub'>{len(idle)} famil{'y' if len(idle) == 1 else 'ies'} with a target but no task yet: "
            f"{_e(', '.join(idle))}</p>") if idle else ""
    return "<h2>Per kind and family</h2>" + intro + _table(COLUMNS, cells) + note


def selfplay_section(view: RunView) -> str:
    """Self-play over the run: the proposer's validity, learnability and duplicates, league, collapse, past solvers,
    and the solver's pass rate per source and mode (per-iteration figures: the selfplay/* metrics)."""
    if view.selfplay is None:
        return ""
    return "<h2>Self-play</h2>" + _table(("", "value"), view.selfplay.rows())


def render(view: RunView, diagnoses: Sequence[Diagnosis] | None = None) -> str:
    """The whole report as one HTML document."""
    stamp = time.strftime("%Y-%m-%d %H:%M:%S")
    body = "".join((
        f"<h1>SPADE run report</h1><p class='sub'>{_e(view.run_dir)} · generated {_e(stamp)}</p>",
        summary_section(view), diagnosis_section(diagnoses), figure_section(view), kind_section(view),
        calibration_section(view), selfplay_section(view),
        rollback_section(view), audit_section(view),
    ))
    return (f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>SPADE report</title>"
            f"<style>{STYLE}</style></head><body>{body}</body></html>\n")
