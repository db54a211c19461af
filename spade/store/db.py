"""One SQLite database per run (WAL): every stage's output, the controller's decisions, metrics and audit.

In: records from an iteration, buffered in an `IterationWrite`. Out: one transaction per iteration, so a run
killed at any point resumes from the last committed iteration with nothing lost and nothing counted twice.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from spade.errors import StoreError
from spade.records import Candidate, Decision, ExecResult, Reward, Task
from spade.store.schema import SCHEMA, SCHEMA_VERSION
from spade.taskio import task_from_dict, task_to_dict

DB_NAME = "spade.sqlite"


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


@dataclass
class IterationWrite:
    """Everything one iteration produced; written by `RunStore.commit_iteration` in one transaction."""

    iteration: int
    started_at: float = field(default_factory=time.time)
    tasks: list[tuple[Task, str]] = field(default_factory=list)  # (task, origin: generated|replay)
    rejections: list[tuple[str, str, float, str, str]] = field(default_factory=list)  # id, family, diff, reason, detail
    rollouts: list[tuple[Candidate, ExecResult, Reward]] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)
    metrics: dict[str, float] = field(default_factory=dict)
    update: dict[str, Any] | None = None
    evals: list[dict[str, Any]] = field(default_factory=list)
    audit: list[tuple[str, str, str, str, str]] = field(default_factory=list)  # kind, ref, model, prompt_hash, result
    state: dict[str, Any] = field(default_factory=dict)  # controller / sampler state after this iteration


class RunStore:
    """The run database. Opened by the pipeline (read-write) and by `spade status` (read-only)."""

    def __init__(self, run_dir: str | Path, *, create: bool = False):
        self.run_dir = Path(run_dir)
        self.path = self.run_dir / DB_NAME
        if not create and not self.path.is_file():
            raise StoreError(f"{self.run_dir} is not a SPADE run directory (no {DB_NAME}); start one with `spade run`")
        self.run_dir.mkdir(parents=True, exist_ok=True)
        try:
            self.conn = sqlite3.connect(self.path, isolation_level=None, timeout=30)
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=FULL")
            self.conn.execute("PRAGMA foreign_keys=ON")
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open run database {self.path}: {exc}") from None
        if create:
            self.conn.executescript(SCHEMA)
            self._set_meta_default("schema_version", str(SCHEMA_VERSION))
        version = self.meta("schema_version")
        if version != str(SCHEMA_VERSION):
            raise StoreError(f"{self.path} has schema version {version}, this SPADE reads {SCHEMA_VERSION}")

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- meta -------------------------------------------------------------------------------------------
    def meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    def _set_meta_default(self, key: str, value: str) -> None:
        self.conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES (?, ?)", (key, value))

    # --- writes -----------------------------------------------------------------------------------------
    def commit_iteration(self, w: IterationWrite) -> None:
        """Write one iteration atomically. An iteration already committed is refused (never counted twice)."""
        c = self.conn
        c.execute("BEGIN IMMEDIATE")
        try:
            if c.execute("SELECT 1 FROM iterations WHERE iteration = ?", (w.iteration,)).fetchone():
                raise StoreError(f"iteration {w.iteration} is already committed in {self.path}")
            self._write_tasks(w)
            self._write_rollouts(w)
            c.executemany(
                "INSERT INTO decisions(iteration, step, family, old_difficulty, new_difficulty, window_mean,"
                " window_size, streak, reason) VALUES (?,?,?,?,?,?,?,?,?)",
                [(w.iteration, d.step, d.family, d.old_difficulty, d.new_difficulty, d.window_mean,
                  d.window_size, d.streak, d.reason) for d in w.decisions],
            )
            c.executemany(
                "INSERT INTO metrics(iteration, name, value) VALUES (?,?,?)",
                [(w.iteration, k, float(v)) for k, v in sorted(w.metrics.items())],
            )
            if w.update is not None:
                c.execute("INSERT INTO updates(iteration, json) VALUES (?, ?)", (w.iteration, _json(w.update)))
            c.executemany(
                "INSERT INTO evals(iteration, suite, json) VALUES (?,?,?)",
                [(w.iteration, e["suite"], _json(e)) for e in w.evals],
            )
            c.executemany(
                "INSERT INTO audit(iteration, kind, ref, model, prompt_hash, result, at) VALUES (?,?,?,?,?,?,?)",
                [(w.iteration, *a, w.started_at) for a in w.audit],
            )
            c.execute(
                "INSERT INTO iterations(iteration, started_at, finished_at, state) VALUES (?,?,?,?)",
                (w.iteration, w.started_at, time.time(), _json(w.state)),
            )
            c.execute("COMMIT")
        except BaseException:
            c.execute("ROLLBACK")
            raise

    def _write_tasks(self, w: IterationWrite) -> None:
        for task, origin in w.tasks:
            if origin == "generated":
                self.conn.execute(
                    "INSERT INTO tasks(task_id, iteration, family, difficulty, json) VALUES (?,?,?,?,?)",
                    (task.task_id, w.iteration, task.family, task.difficulty, _json(task_to_dict(task))),
                )
            self.conn.execute(
                "INSERT INTO task_uses(iteration, task_id, origin) VALUES (?,?,?)", (w.iteration, task.task_id, origin)
            )
        self.conn.executemany(
            "INSERT INTO rejections(iteration, draft_id, family, difficulty, reason, detail) VALUES (?,?,?,?,?,?)",
            [(w.iteration, *r) for r in w.rejections],
        )

    def _write_rollouts(self, w: IterationWrite) -> None:
        for cand, result, reward in w.rollouts:
            self.conn.execute(
                "INSERT INTO candidates(candidate_id, iteration, task_id, completion, code, model, prompt_hash,"
                " prompt_variant, new_tokens) VALUES (?,?,?,?,?,?,?,?,?)",
                (cand.candidate_id, w.iteration, cand.task_id, cand.completion, cand.code, cand.model,
                 cand.prompt_hash, cand.prompt_variant, cand.new_tokens),
            )
            self.conn.execute(
                "INSERT INTO executions(candidate_id, status, score, public_score, hidden_score, cpu_time_s,"
                " peak_memory_kb, wall_time_s, json) VALUES (?,?,?,?,?,?,?,?,?)",
                (cand.candidate_id, result.status.value, result.score, result.public_score, result.hidden_score,
                 result.cpu_time_s, result.peak_memory_kb, result.wall_time_s, _json(exec_result_to_dict(result))),
            )
            self.conn.execute(
                "INSERT INTO rewards(candidate_id, total, pass_fraction, difficulty_bonus, efficiency_penalty,"
                " interference_penalty, format_penalty, hardcoding_suspected) VALUES (?,?,?,?,?,?,?,?)",
                (cand.candidate_id, reward.total, reward.pass_fraction, reward.difficulty_bonus,
                 reward.efficiency_penalty, reward.interference_penalty, reward.format_penalty,
                 int(reward.hardcoding_suspected)),
            )

    # --- reads ------------------------------------------------------------------------------------------
    def last_iteration(self) -> int:
        """The last committed iteration, -1 when none."""
        row = self.conn.execute("SELECT MAX(iteration) FROM iterations").fetchone()
        return -1 if row[0] is None else int(row[0])

    def state_after(self, iteration: int) -> dict[str, Any]:
        row = self.conn.execute("SELECT state FROM iterations WHERE iteration = ?", (iteration,)).fetchone()
        return json.loads(row[0]) if row else {}

    def tasks(self) -> Iterator[Task]:
        for (text,) in self.conn.execute("SELECT json FROM tasks ORDER BY rowid"):
            yield task_from_dict(json.loads(text), "store")

    def task(self, task_id: str) -> Task:
        row = self.conn.execute("SELECT json FROM tasks WHERE task_id = ?", (task_id,)).fetchone()
        if row is None:
            raise StoreError(f"task {task_id} is not in {self.path}")
        return task_from_dict(json.loads(row[0]), "store")

    def passing_samples(self, since_iteration: int, limit: int) -> list[tuple[str, str]]:
        """(task_id, completion) of candidates that passed every test, newest first."""
        rows = self.conn.execute(
            "SELECT c.task_id, c.completion FROM candidates c JOIN executions e USING(candidate_id)"
            " WHERE c.iteration >= ? AND e.status = 'passed' ORDER BY c.iteration DESC, c.rowid LIMIT ?",
            (since_iteration, limit),
        ).fetchall()
        return [(r[0], r[1]) for r in rows]

    def task_pass_history(self) -> dict[str, list[float]]:
        """Per task, the mean score of each iteration it was attempted in, oldest first (for replay priority)."""
        rows = self.conn.execute(
            "SELECT c.task_id, c.iteration, AVG(e.status = 'passed') FROM candidates c JOIN executions e"
            " USING(candidate_id) GROUP BY c.task_id, c.iteration ORDER BY c.iteration"
        ).fetchall()
        history: dict[str, list[float]] = {}
        for task_id, _, rate in rows:
            history.setdefault(task_id, []).append(float(rate))
        return history

    def record_eval(self, suite: str, report: dict[str, Any]) -> int:
        """A standalone evaluation (`spade eval --run-dir`), filed under the last committed iteration; the same
        suite label evaluated again at that iteration replaces the earlier row. Returns the iteration."""
        iteration = max(self.last_iteration(), 0)
        self.conn.execute("INSERT OR REPLACE INTO evals(iteration, suite, json) VALUES (?,?,?)",  # one statement:
                          (iteration, suite, _json(report)))  # atomic in autocommit mode
        return iteration

    def query(self, sql: str, params: tuple = ()) -> list[tuple]:
        return self.conn.execute(sql, params).fetchall()


def exec_result_to_dict(result: ExecResult) -> dict[str, Any]:
    return {
        "status": result.status.value,
        "tests": [
            {"index": t.index, "hidden": t.hidden, "status": t.status.value, "got": t.got, "error": t.error}
            for t in result.tests
        ],
        "cpu_time_s": result.cpu_time_s,
        "peak_memory_kb": result.peak_memory_kb,
        "wall_time_s": result.wall_time_s,
        "output_bytes": result.output_bytes,
        "load_error": result.load_error,
        "events": list(result.events),
    }
