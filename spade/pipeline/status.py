"""`spade status RUN_DIR`: a summary of a run read from its database (safe while the run is going)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from rich.console import Console
from rich.table import Table

from spade.pipeline.rundir import HEARTBEAT_NAME
from spade.report.runview import calibration, task_outcomes
from spade.store import RunStore


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
    heartbeat: dict | None = field(default=None)


def summarise(store: RunStore) -> RunSummary:
    one = lambda sql: store.query(sql)[0][0]  # noqa: E731
    last = store.last_iteration()
    state = store.state_after(last) if last >= 0 else {}
    families = state.get("controller", {}).get("families", {})
    evals = store.query("SELECT e.json FROM evals e WHERE e.iteration = (SELECT MAX(iteration) FROM evals f"
                        " WHERE f.suite = e.suite) ORDER BY e.suite")
    hb_path = store.run_dir / HEARTBEAT_NAME
    return RunSummary(
        iterations=last + 1,
        tasks_accepted=one("SELECT COUNT(*) FROM tasks"),
        tasks_rejected=one("SELECT COUNT(*) FROM rejections"),
        rejected_by_reason=dict(store.query("SELECT reason, COUNT(*) FROM rejections GROUP BY reason ORDER BY 2 DESC")),
        tasks_replayed=one("SELECT COUNT(*) FROM task_uses WHERE origin = 'replay'"),
        rollouts=one("SELECT COUNT(*) FROM executions"),
        pass_rate=one("SELECT COALESCE(AVG(status = 'passed'), 0) FROM executions"),
        mean_reward=one("SELECT COALESCE(AVG(total), 0) FROM rewards"),
        hardcoding_suspected=one("SELECT COALESCE(SUM(hardcoding_suspected), 0) FROM rewards"),
        difficulty_now={f: s["difficulty"] for f, s in sorted(families.items())},
        difficulty_history={f: s["history"] for f, s in sorted(families.items())},
        updates=one("SELECT COUNT(*) FROM updates"),
        rollbacks=one("SELECT COUNT(*) FROM metrics WHERE name = 'rollback'"),
        last_evals=[json.loads(row[0]) for row in evals],
        curve=[tuple(r) for r in store.query(
            "SELECT p.iteration, p.value, r.value FROM metrics p JOIN metrics r USING(iteration)"
            " WHERE p.name = 'pass_rate' AND r.name = 'mean_reward' ORDER BY p.iteration")],
        heartbeat=_heartbeat(hb_path),
        calibration=[asdict(r) for r in calibration(task_outcomes(store))],
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
    if s.calibration:
        console.print(calibration_table_view(s.calibration))
    return 0


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
