"""One SQLite database per run (WAL): every stage's output, the controller's decisions, metrics and audit.

In: records from an iteration, buffered in an `IterationWrite`. Out: one transaction per iteration, so a run
killed at any point resumes from the last committed iteration with nothing lost and nothing counted twice.
Text from outside (completions, code, model names, audit results, rejection details) is stored as a bounded,
encodable excerpt (spade.untrusted.excerpt: "…[truncated N bytes]" past the cap).
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator
from urllib.parse import quote

from spade.errors import EXIT_INFRA, StoreError
from spade.records import AuditEntry, ExecResult, Rejection, Task
from spade.store.iteration import IterationWrite, ProposalRecord, RunState
from spade.store.schema import MIGRATIONS, READABLE_VERSIONS, SCHEMA, SCHEMA_VERSION
from spade.taskio import task_from_dict, task_to_dict
from spade.untrusted import MAX_FIELD_BYTES, MAX_STORED_BYTES, excerpt

log = logging.getLogger("spade.store")

DB_NAME = "spade.sqlite"


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _kept(text: str, limit: int = MAX_STORED_BYTES) -> str:
    """Text from outside (a completion, a model name, a rejection's detail) as stored: encodable and bounded."""
    return excerpt(text, limit)


class RunStore:
    """The run database. Opened read-write by the pipeline; `read_only=True` (status, report, doctor, export)
    never writes, so it also reads a run on read-only media or one that is running now."""

    def __init__(self, run_dir: str | Path, *, create: bool = False, read_only: bool = False,
                 busy_timeout_s: float = 30.0, db_name: str = DB_NAME):
        self.run_dir = Path(run_dir)
        self.path = self.run_dir / db_name
        self.busy_timeout_s = busy_timeout_s
        if not create and not self.path.is_file():
            raise StoreError(f"{self.run_dir} is not a SPADE run directory (no {DB_NAME}); start one with `spade run`")
        if create:
            self.run_dir.mkdir(parents=True, exist_ok=True)
        try:
            self.conn = self._open_read_only() if read_only else self._open_read_write(create)
            version = self.meta("schema_version")
        except sqlite3.DatabaseError as exc:
            if _medium_failed(exc):
                raise StoreError(f"cannot read run database {self.path}: {_cause(exc, busy_timeout_s)}",
                                 exit_code=EXIT_INFRA) from None
            raise StoreError(f"cannot read run database {self.path}: {exc}; is it a SPADE run database?") from None
        if version != str(SCHEMA_VERSION) and not (read_only and version in READABLE_VERSIONS):
            if read_only or not _migratable(version):
                raise StoreError(f"{self.path} has schema version {version}, this SPADE reads {SCHEMA_VERSION}; "
                                 "open it with the SPADE version that made it")
            self._migrate(int(str(version)))

    def _migrate(self, version: int) -> None:
        """Bring an older run's database up to SCHEMA_VERSION in one transaction (all steps or none)."""
        log.warning("%s: upgrading the run database from schema version %d to %d", self.path, version,
                    SCHEMA_VERSION)
        with self._writing("upgrade the database"):
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                for step in range(version, SCHEMA_VERSION):
                    for statement in MIGRATIONS[step]:
                        self.conn.execute(statement)
                self.conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION),))
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    def _open_read_write(self, create: bool) -> sqlite3.Connection:
        with self._writing("open the database"):
            conn = sqlite3.connect(self.path, isolation_level=None, timeout=self.busy_timeout_s)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
            if create:
                conn.executescript(SCHEMA)
                conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES (?, ?)",
                             ("schema_version", str(SCHEMA_VERSION)))
        return conn

    def _open_read_only(self) -> sqlite3.Connection:
        """mode=ro first: it sees a live run's latest commits, but needs the -shm index beside the database, which
        read-only media cannot grow. There a closed run (no write-ahead log) is opened immutable: nothing can
        change it and nothing is locked."""
        uri = "file:" + quote(str(self.path.resolve()))
        conn = sqlite3.connect(uri + "?mode=ro", uri=True, isolation_level=None, timeout=self.busy_timeout_s)
        try:
            conn.execute("SELECT 1 FROM meta LIMIT 1").fetchall()
            return conn
        except sqlite3.OperationalError as exc:
            conn.close()
            if getattr(exc, "sqlite_errorname", "") != "SQLITE_CANTOPEN":
                raise
        wal = self.path.with_name(self.path.name + "-wal")
        if wal.is_file() and wal.stat().st_size > 0:
            raise StoreError(
                f"cannot read {self.path} here: the medium is read-only and {wal.name} holds committed data "
                f"without its {self.path.name}-shm index; copy the run directory to writable storage and run this there",
                exit_code=EXIT_INFRA)
        return sqlite3.connect(uri + "?immutable=1", uri=True, isolation_level=None)

    @contextmanager
    def _writing(self, what: str, then: str = "") -> Iterator[None]:
        """SQLite failures of the medium (locked, full, read-only, I/O) as one-line StoreErrors; our own bugs
        (constraint violations) keep their traceback."""
        try:
            yield
        except sqlite3.OperationalError as exc:
            err = StoreError(f"cannot {what} in {self.path}: {_cause(exc, self.busy_timeout_s)}{then}",
                             exit_code=EXIT_INFRA)
            err.reason = _cause(exc, self.busy_timeout_s)
            raise err from None

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
        with self._writing(f"record {key}"):
            self.conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    # --- writes -----------------------------------------------------------------------------------------
    def commit_iteration(self, w: IterationWrite) -> None:
        """Write one iteration atomically. An iteration already committed is refused (never counted twice)."""
        last = self.last_iteration()
        kept = f"iterations 0-{last} are committed and intact" if last >= 0 else "no iteration was committed yet"
        then = f"; {kept}: resume with `spade run --resume {self.run_dir}` once that is fixed"
        with self._writing(f"commit iteration {w.iteration}", then):
            self._commit_iteration(w)

    def _commit_iteration(self, w: IterationWrite) -> None:
        with self._transaction():
            if self.conn.execute("SELECT 1 FROM iterations WHERE iteration = ?", (w.iteration,)).fetchone():
                raise StoreError(f"iteration {w.iteration} is already committed in {self.path}")
            self._write_iteration(w)

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        c = self.conn
        c.execute("BEGIN IMMEDIATE")  # waits up to busy_timeout_s for another writer's lock
        try:
            yield
            c.execute("COMMIT")
        except BaseException:
            if c.in_transaction:  # SQLite may already have rolled back (a full disk does)
                c.execute("ROLLBACK")
            raise

    def _write_iteration(self, w: IterationWrite) -> None:
        c = self.conn
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
            c.execute("INSERT INTO updates(iteration, json) VALUES (?, ?)", (w.iteration, _json(w.update.to_dict())))
        c.executemany(
            "INSERT INTO evals(iteration, suite, json) VALUES (?,?,?)",
            [(w.iteration, e.suite, _json(e.to_dict())) for e in w.evals],
        )
        self._write_audit(w.iteration, w.audit, w.started_at)
        self._write_proposals(w.proposals)
        c.executemany(
            "UPDATE proposals SET solve_rate = ?, learnability = ?, reward = ? WHERE proposal_id = ?"
            " AND solve_rate IS NULL", [(r.solve_rate, r.learnability, r.reward, r.proposal_id)
                                        for r in w.proposal_rewards])
        c.execute(
            "INSERT INTO iterations(iteration, started_at, finished_at, state) VALUES (?,?,?,?)",
            (w.iteration, w.started_at, time.time(), _json(w.state.to_dict())),
        )

    def _write_proposals(self, rows: list[ProposalRecord]) -> None:
        self.conn.executemany(
            "INSERT INTO proposals(proposal_id, iteration, checkpoint, model, mode, task_id, valid, reason, similarity,"
            " solve_rate, learnability, reward, prompt, completion) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            [(p.proposal_id, p.iteration, p.checkpoint and _kept(p.checkpoint, MAX_FIELD_BYTES),
              _kept(p.model, MAX_FIELD_BYTES), p.mode, p.task_id, int(p.valid), p.reason, p.similarity, p.solve_rate,
              p.learnability, p.reward, p.prompt, _kept(p.completion)) for p in rows],
        )

    def _write_audit(self, iteration: int, rows: list[AuditEntry], at: float) -> None:
        self.conn.executemany(
            "INSERT INTO audit(iteration, kind, ref, model, prompt_hash, result, at) VALUES (?,?,?,?,?,?,?)",
            [(iteration, a.kind, a.ref, _kept(a.model, MAX_FIELD_BYTES), a.prompt_hash, _kept(a.result), at)
             for a in rows],
        )

    # --- the environment's writes: several processes share one run (spade.env) ---------------------------
    def commit_next(self, build: Callable[[int, RunState], IterationWrite], *,
                    key: str | None = None) -> tuple[IterationWrite, bool]:
        """Commit the next iteration, built inside the write transaction from the last committed state, so writers
        in other threads or processes serialise on SQLite's lock and never read a stale state. `key`, if given,
        makes the call idempotent: a key already committed returns (that iteration's number only, False).
        Returns (the write, True when committed now)."""
        with self._writing("commit the next iteration"):
            with self._transaction():
                if key is not None:
                    row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (f"report:{key}",)).fetchone()
                    if row is not None:
                        return IterationWrite(iteration=int(row[0])), False
                last = self.last_iteration()
                w = build(last + 1, self.state_after(last))
                if w.iteration != last + 1:
                    raise StoreError(f"commit_next built iteration {w.iteration}, expected {last + 1}")
                self._write_iteration(w)
                if key is not None:
                    self.conn.execute("INSERT INTO meta(key, value) VALUES (?, ?)", (f"report:{key}", str(w.iteration)))
        return w, True

    def next_count(self, name: str) -> int:
        """An atomic counter kept in meta (0, 1, 2, ... across processes)."""
        with self._writing(f"advance the {name} counter"):
            with self._transaction():
                row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (f"count:{name}",)).fetchone()
                value = int(row[0]) if row else 0
                self.conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (f"count:{name}", str(value + 1)))
        return value

    def add_drawn(self, since_rowid: int,
                  accept: Callable[[list[Task]], tuple[list[Task], list[Rejection]]],
                  rejections: list[Rejection], audit: list[AuditEntry],
                  proposals: Callable[[int, list[Task]], list[ProposalRecord]] | None = None
                  ) -> tuple[int, list[Task], int]:
        """Store drawn tasks under the open iteration (the next to be committed), in one transaction.
        `accept(tasks stored after since_rowid)` runs under the lock and returns the tasks to store and more
        rejections (duplicates of tasks another process stored meanwhile). Task audit rows are kept for stored
        tasks only. `proposals(iteration, tasks stored)`, when given, are the proposal rows written with them.
        Returns (the iteration, the tasks stored, the newest task row id)."""
        with self._writing("store drawn tasks"):
            with self._transaction():
                iteration = self.last_iteration() + 1
                _, newer = self.tasks_after(since_rowid)
                tasks, more = accept(newer)
                for task in tasks:
                    self.conn.execute(
                        "INSERT INTO tasks(task_id, iteration, family, difficulty, json) VALUES (?,?,?,?,?)",
                        (task.task_id, iteration, task.family, task.difficulty, _json(task_to_dict(task))))
                self.conn.executemany(
                    "INSERT INTO rejections(iteration, draft_id, family, difficulty, reason, detail) VALUES (?,?,?,?,?,?)",
                    [(iteration, r.draft_id, r.family, r.difficulty, r.reason, _kept(r.detail))
                     for r in [*rejections, *more]])
                stored = {t.task_id for t in tasks}
                self._write_audit(iteration, [a for a in audit if a.kind != "task" or a.ref in stored], time.time())
                if proposals is not None:
                    self._write_proposals(proposals(iteration, tasks))
                newest = self.conn.execute("SELECT MAX(rowid) FROM tasks").fetchone()[0] or 0
        return iteration, tasks, newest

    def tasks_after(self, rowid: int) -> tuple[int, list[Task]]:
        """(the newest task row id, the tasks stored after `rowid`), oldest first."""
        rows = self.conn.execute("SELECT rowid, json FROM tasks WHERE rowid > ? ORDER BY rowid", (rowid,)).fetchall()
        last = rows[-1][0] if rows else rowid
        return last, [task_from_dict(json.loads(text), "store") for _, text in rows]

    def stored(self, task_ids: list[str]) -> set[str]:
        """Which of `task_ids` are in the tasks table."""
        marks = ",".join("?" * len(task_ids))
        return {r[0] for r in self.conn.execute(f"SELECT task_id FROM tasks WHERE task_id IN ({marks})", task_ids)}

    def uses(self, task_ids: list[str]) -> set[str]:
        """Which of `task_ids` were attempted in some committed iteration."""
        marks = ",".join("?" * len(task_ids))
        rows = self.conn.execute(f"SELECT DISTINCT task_id FROM task_uses WHERE task_id IN ({marks})", task_ids)
        return {r[0] for r in rows}

    def _write_tasks(self, w: IterationWrite) -> None:
        for use in w.tasks:
            task, origin = use.task, use.origin
            if origin == "generated":
                self.conn.execute(
                    "INSERT INTO tasks(task_id, iteration, family, difficulty, json) VALUES (?,?,?,?,?)",
                    (task.task_id, w.iteration, task.family, task.difficulty, _json(task_to_dict(task))),
                )
            self.conn.execute(
                "INSERT INTO task_uses(iteration, task_id, origin) VALUES (?,?,?)", (w.iteration, task.task_id, origin)
            )
        self.conn.executemany(
            "INSERT INTO task_uses(iteration, task_id, origin) VALUES (?,?,?)",
            [(w.iteration, u.task_id, u.origin) for u in w.task_uses],
        )
        self.conn.executemany(
            "INSERT INTO rejections(iteration, draft_id, family, difficulty, reason, detail) VALUES (?,?,?,?,?,?)",
            [(w.iteration, r.draft_id, r.family, r.difficulty, r.reason, _kept(r.detail)) for r in w.rejections],
        )

    def _write_rollouts(self, w: IterationWrite) -> None:
        for rollout in w.rollouts:
            cand, result, reward = rollout.candidate, rollout.result, rollout.reward
            self.conn.execute(
                "INSERT INTO candidates(candidate_id, iteration, task_id, completion, code, model, prompt_hash,"
                " prompt_variant, new_tokens) VALUES (?,?,?,?,?,?,?,?,?)",
                (cand.candidate_id, w.iteration, cand.task_id, _kept(cand.completion), _kept(cand.code),
                 _kept(cand.model, MAX_FIELD_BYTES), cand.prompt_hash, cand.prompt_variant, cand.new_tokens),
            )
            self.conn.execute(
                "INSERT INTO executions(candidate_id, status, score, public_score, hidden_score, cpu_time_s,"
                " peak_memory_kb, wall_time_s, json) VALUES (?,?,?,?,?,?,?,?,?)",
                (cand.candidate_id, result.status.value, result.score, result.public_score, result.hidden_score,
                 result.cpu_time_s, result.peak_memory_kb, result.wall_time_s, _json(exec_result_to_dict(result))),
            )
            self.conn.execute(
                "INSERT INTO rewards(candidate_id, total, pass_fraction, difficulty_bonus, efficiency_penalty,"
                " interference_penalty, format_penalty, hardcoding_suspected, memory_penalty)"
                " VALUES (?,?,?,?,?,?,?,?,?)",
                (cand.candidate_id, reward.total, reward.pass_fraction, reward.difficulty_bonus,
                 reward.efficiency_penalty, reward.interference_penalty, reward.format_penalty,
                 int(reward.hardcoding_suspected), reward.memory_penalty),
            )

    # --- reads ------------------------------------------------------------------------------------------
    def last_iteration(self) -> int:
        """The last committed iteration, -1 when none."""
        row = self.conn.execute("SELECT MAX(iteration) FROM iterations").fetchone()
        return -1 if row[0] is None else int(row[0])

    def state_after(self, iteration: int) -> RunState:
        """The state committed with `iteration`; the empty state when there is none (iteration -1: a new run)."""
        row = self.conn.execute("SELECT state FROM iterations WHERE iteration = ?", (iteration,)).fetchone()
        return RunState.from_dict(json.loads(row[0])) if row else RunState()

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

    def rollouts(self, limit: int) -> list[tuple[str, str, str, bool, int]]:
        """(task_id, completion, code, passed, prompt_variant) of the newest `limit` graded candidates, newest
        first (for the training buffer, spade.train.buffer)."""
        rows = self.conn.execute(
            "SELECT c.task_id, c.completion, c.code, e.status = 'passed', c.prompt_variant FROM candidates c"
            " JOIN executions e USING(candidate_id) ORDER BY c.iteration DESC, c.rowid LIMIT ?", (limit,),
        ).fetchall()
        return [(r[0], r[1], r[2], bool(r[3]), int(r[4])) for r in rows]

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
        with self._writing(f"record the {suite} evaluation"):
            self.conn.execute("INSERT OR REPLACE INTO evals(iteration, suite, json) VALUES (?,?,?)",  # one statement:
                              (iteration, suite, _json(report)))  # atomic in autocommit mode
        return iteration

    def query(self, sql: str, params: tuple = ()) -> list[tuple]:
        return self.conn.execute(sql, params).fetchall()


_MEDIUM = ("SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_FULL", "SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_IOERR")


def _medium_failed(exc: sqlite3.Error) -> bool:
    """The disk, the file system or another process is in the way (not: the file is not our database)."""
    return getattr(exc, "sqlite_errorname", "").startswith(_MEDIUM)


def _cause(exc: sqlite3.Error, busy_timeout_s: float) -> str:
    """The medium's failure in words, with what to do about it."""
    name = getattr(exc, "sqlite_errorname", "")
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        return (f"the database is locked by another process (waited {busy_timeout_s:g} s); stop the other writer "
                "(another `spade run` on this directory?)")
    if name == "SQLITE_FULL":
        return "the disk is full"
    if name.startswith("SQLITE_READONLY") or name.startswith("SQLITE_CANTOPEN"):
        return f"{exc} (the directory or file is not writable); use a writable run directory"
    return f"{exc} ({name or 'sqlite error'})"


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
        "memory_limit_kb": result.memory_limit_kb,
        "stdout": result.stdout,  # a program's output, bounded (records.OUTPUT_KEPT): for the audit, never a verdict
        "stderr": result.stderr,
    }


def _migratable(version: str | None) -> bool:
    return (version is not None and version.isdigit() and int(version) < SCHEMA_VERSION
            and all(v in MIGRATIONS for v in range(int(version), SCHEMA_VERSION)))
