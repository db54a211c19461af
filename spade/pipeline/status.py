"""`spade status RUN_DIR`: a summary of a run read from its database (safe while the run is going)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from rich.console import Console
from rich.table import Table

from spade.curriculum.by_kind import COLUMNS, GroupRow, kind_rows, row_cells
from spade.curriculum.calibration import calibration
from spade.dedup.behaviour import MATCHES_NAME, read_matches
from spade.rundir.layout import HEARTBEAT_NAME
from spade.store import RunStore
from spade.store.proposals import SelfplaySummary, selfplay_summary
from spade.store.views import latest_evals, pass_curve, rejections_by_reason, run_counts, task_outcomes


@dataclass(frozen=True)
class RunSummary:
    iterations: int
    tasks_accepted: int
    tasks_rejected: int
    rejected_by_reason: dict[str, int]
    tasks_replayed: int
    rollouts: int
    pass_rate: float
    mean_reward: float
    hardcoding_suspected: int
    difficulty_now: dict[str, float]
    difficulty_history: dict[str, list[float]]
    updates: int
    rollbacks: int
    last_evals: list[dict]
    """The latest evaluation of each suite (the reported split and the gate's dev split are separate suites)."""
    curve: list[tuple[int, float, float]] = field(default_factory=list)  # (iteration, pass rate, mean reward)
    calibration: list[dict] = field(default_factory=list)  # per family / proposer: claimed vs measured difficulty
    by_kind: list[dict] = field(default_factory=list)  # per task kind, then its families: pass rate and difficulty
    heartbeat: dict | None = field(default=None)
    selfplay: dict | None = field(default=None)  # SelfplaySummary's fields, when anything was proposed
    eval_tasks_dropped: int = 0
    """Evaluation tasks left out of the run's evaluation because a trained task computes them (contamination.jsonl)."""


def summarise(store: RunStore) -> RunSummary:
    last = store.last_iteration()
    families = (store.state_after(last).controller or {}).get("families", {})
    counts = run_counts(store)
    outcomes = task_outcomes(store)
    return RunSummary(
        iterations=last + 1,
        tasks_accepted=counts["tasks_accepted"],
        tasks_rejected=counts["tasks_rejected"],
        rejected_by_reason=rejections_by_reason(store),
        tasks_replayed=counts["tasks_replayed"],
        rollouts=counts["rollouts"],
        pass_rate=counts["pass_rate"],
        mean_reward=counts["mean_reward"],
        hardcoding_suspected=counts["hardcoding_suspected"],
        difficulty_now={f: s["difficulty"] for f, s in sorted(families.items())},
        difficulty_history={f: s["history"] for f, s in sorted(families.items())},
        updates=counts["updates"],
        rollbacks=counts["rollbacks"],
        last_evals=latest_evals(store),
        curve=pass_curve(store),
        heartbeat=_heartbeat(store.run_dir / HEARTBEAT_NAME),
        calibration=[asdict(r) for r in calibration(outcomes)],
        by_kind=[asdict(r) for r in kind_rows(outcomes, {f: s["difficulty"] for f, s in families.items()})],
        selfplay=asdict(sp) if (sp := selfplay_summary(store)) is not None else None,
        eval_tasks_dropped=len(set(read_matches(store.run_dir / MATCHES_NAME))),
    )


def _heartbeat(path: Path) -> dict | None:
    """The heartbeat, or None when it is missing or unreadable: it is a hint, the database is the record."""
    try:
        beat = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    return beat if isinstance(beat, dict) and {"iteration", "stage"} <= beat.keys() else None


def status_command(run_dir: str, as_json: bool = False) -> int:
    with RunStore(Path(run_dir), read_only=True) as store:
        s = summarise(store)
    console = Console()
    if as_json:
        console.print_json(json.dumps(s.__dict__))
        return 0
    t = Table(title=f"SPADE run {run_dir}", show_header=False)
    t.add_row("iterations committed", str(s.iterations))
    if s.heartbeat:
        t.add_row("last heartbeat", f"iteration {s.heartbeat['iteration']}, {s.heartbeat['stage']}")
    t.add_row("tasks generated", str(s.tasks_accepted + s.tasks_rejected))
    t.add_row("  accepted", str(s.tasks_accepted))
    t.add_row("  rejected", str(s.tasks_rejected))
    for reason, n in s.rejected_by_reason.items():
        t.add_row(f"    {reason}", str(n))
    t.add_row("tasks replayed", str(s.tasks_replayed))
    t.add_row("rollouts", str(s.rollouts))
    t.add_row("pass rate", f"{s.pass_rate:.3f}")
    t.add_row("mean reward", f"{s.mean_reward:.3f}")
    t.add_row("suspected hard-coding", str(s.hardcoding_suspected))
    if s.eval_tasks_dropped:
        t.add_row("eval tasks left out (a trained task computes them)", str(s.eval_tasks_dropped))
    t.add_row("policy updates", str(s.updates))
    t.add_row("rollbacks", str(s.rollbacks))
    for ev in s.last_evals:
        t.add_row(f"last eval ({ev['suite']})", _fmt_passk(ev.get("pass_at_k", {})))
    if s.curve:
        t.add_row("pass rate by iteration", " ".join(f"{p:.2f}" for _, p, _ in s.curve))
        t.add_row("reward by iteration", " ".join(f"{r:.2f}" for _, _, r in s.curve))
    for fam, diff in s.difficulty_now.items():
        hist = " → ".join(f"{d:.2f}" for d in s.difficulty_history[fam])
        t.add_row(f"difficulty {fam}", f"{diff:.2f}  ({hist})")
    console.print(t)
    if s.by_kind:
        console.print(kind_table_view(s.by_kind))
    if s.calibration:
        console.print(calibration_table_view(s.calibration))
    if s.selfplay:
        console.print(selfplay_table_view(s.selfplay))
    return 0


def selfplay_table_view(summary: dict) -> Table:
    """The run's self-play figures (SelfplaySummary's fields, as a dict)."""
    fields = {**summary, "pass_by_source": {k: tuple(v) for k, v in summary["pass_by_source"].items()},
              "pass_by_mode": {k: tuple(v) for k, v in summary["pass_by_mode"].items()}}
    t = Table(title="self-play: proposals, league, collapse, past solvers", show_header=False)
    for label, value in SelfplaySummary(**fields).rows():
        t.add_row(label, value)
    return t


def kind_table_view(rows: list[dict]) -> Table:
    """Pass rate and difficulty per task kind (bold), then per family of it (GroupRow fields, as dicts)."""
    t = Table(title="pass rate and difficulty per kind and family")
    for i, name in enumerate(COLUMNS):
        t.add_column(name, justify="left" if i == 0 else "right", no_wrap=i == 0)
    for r in rows:
        t.add_row(*row_cells(GroupRow(**r)), style="bold" if r["family"] is None else None)
    return t


def calibration_table_view(rows: list[dict]) -> Table:
    """Calibration rows (CalibrationRow fields, as dicts) as a terminal table; bench/difficulty.py prints it too."""
    t = Table(title="difficulty calibration (measured = 1 - pass rate; bias > 0: harder than claimed)")
    t.add_column("group", no_wrap=True)  # names in full; the numeric columns are the ones to squeeze
    for name in ("tasks", "rollouts", "mean abs. error", "bias", "rank corr."):
        t.add_column(name, justify="right")
    for r in rows:
        corr = "—" if r["rank_corr"] is None else f"{r['rank_corr']:+.2f}"
        t.add_row(r["group"], str(r["tasks"]), str(r["rollouts"]), f"{r['mae']:.3f}", f"{r['bias']:+.3f}", corr)
    return t


def _fmt_passk(passk: dict) -> str:
    return ", ".join(f"pass@{k} {v:.3f}" for k, v in passk.items())
