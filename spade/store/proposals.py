"""Reads of self-play's proposals table (written with each iteration by RunStore.commit_iteration).

In: a RunStore. Out: what spade.selfplay asks of the past: recent proposals (for near-duplicates and as examples)
and the learnable ones (as examples), the proposer's training examples (highest reward first) and the league's
candidates (tasks proposed by earlier weights, with the solver's pass history on them); for the environment API
(spade.env), the proposals still waiting for the solver's answers, those filed under an iteration, and those whose
reward is final; for `spade status` and `spade report`, the run's self-play summary.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from spade.store.db import RunStore
from spade.store.iteration import ProposalRecord

_COLUMNS = ("proposal_id, iteration, checkpoint, model, mode, task_id, valid, reason, similarity, solve_rate,"
            " learnability, reward, prompt, completion")


def recent_programs(store: RunStore, limit: int, *, learnable: bool = False) -> list[tuple[str, str]]:
    """(task_id, completion) of the newest valid proposals, newest first; with `learnable`, only those the solver
    solved sometimes (learnability > 0)."""
    return [(r[0], r[1]) for r in store.query(
        "SELECT task_id, completion FROM proposals WHERE valid = 1 AND task_id IS NOT NULL"
        + (" AND learnability > 0" if learnable else "") + " ORDER BY rowid DESC LIMIT ?", (limit,))]


def copied_examples(store: RunStore) -> dict[str, int]:
    """How often each shown worked example was copied: the example text of every proposal refused as a copy of it
    (reason duplicate_example), counted."""
    counts: dict[str, int] = {}
    for (prompt,) in store.query("SELECT prompt FROM proposals WHERE reason = 'duplicate_example'"):
        try:
            shown = json.loads(prompt)["examples"]
        except (ValueError, TypeError, KeyError):
            continue
        for text in shown if isinstance(shown, list) else ():
            if isinstance(text, str):
                counts[text] = counts.get(text, 0) + 1
    return counts


def proposer_examples(store: RunStore, after_iteration: int, min_reward: float, limit: int) -> list[tuple[str, str, float]]:
    """(prompt JSON, completion, reward) of proposals made after `after_iteration` whose reward exceeds
    `min_reward`, best first."""
    return [(r[0], r[1], float(r[2])) for r in store.query(
        "SELECT prompt, completion, reward FROM proposals WHERE iteration > ? AND reward > ?"
        " ORDER BY reward DESC, rowid LIMIT ?", (after_iteration, min_reward, limit))]


def proposer_rewards(store: RunStore, after_iteration: int, limit: int) -> list[tuple[str, str, float]]:
    """(prompt JSON, completion, reward) of every proposal made after `after_iteration` whose reward is final
    (invalid, duplicate, or rewarded from the solver's answers), oldest first: what DPO pairs and GRPO's
    advantages need (low rewards as well as high)."""
    return [(r[0], r[1], float(r[2])) for r in store.query(
        "SELECT prompt, completion, reward FROM proposals WHERE iteration > ? AND (valid = 0 OR task_id IS NULL"
        " OR solve_rate IS NOT NULL) ORDER BY rowid LIMIT ?", (after_iteration, limit))]


def league_candidates(store: RunStore, current: str | None, limit: int) -> list[tuple[str, str | None]]:
    """(task_id, checkpoint) of valid proposals made by weights other than `current`, newest first."""
    return [(r[0], r[1]) for r in store.query(
        "SELECT task_id, checkpoint FROM proposals WHERE valid = 1 AND task_id IS NOT NULL"
        " AND COALESCE(checkpoint, '') != ? ORDER BY rowid DESC LIMIT ?", (current or "", limit))]


def newest_proposer(store: RunStore) -> str:
    """The checkpoint named with the newest proposal; a name no proposal has when it is unnamed (or none exists),
    so every proposal counts as another's for `league_candidates`."""
    rows = store.query("SELECT checkpoint FROM proposals ORDER BY rowid DESC LIMIT 1")
    return str(rows[0][0]) if rows and rows[0][0] else "\0unnamed"


def proposal_counts(store: RunStore) -> dict[str, float]:
    """Totals over the run: proposals, valid ones, mean reward of the valid ones."""
    rows = store.query("SELECT COUNT(*), SUM(valid), AVG(CASE WHEN valid = 1 THEN reward END) FROM proposals")
    n, valid, mean = rows[0] if rows else (0, 0, None)
    return {"proposals": float(n or 0), "valid": float(valid or 0), "mean_reward": float(mean or 0.0)}


def awaiting_reward(store: RunStore, task_ids: list[str]) -> list[tuple[str, str, float]]:
    """(proposal_id, task_id, similarity) of admitted proposals of `task_ids` whose solve rate is not known yet."""
    marks = ",".join("?" * len(task_ids))
    return [(r[0], r[1], float(r[2])) for r in store.query(
        f"SELECT proposal_id, task_id, similarity FROM proposals WHERE valid = 1 AND solve_rate IS NULL"
        f" AND task_id IN ({marks}) ORDER BY rowid", tuple(task_ids))]


def filed_under(store: RunStore, iteration: int) -> tuple[int, int, int]:
    """(proposals, valid ones, admitted ones) recorded under `iteration`."""
    rows = store.query("SELECT COUNT(*), SUM(valid), SUM(valid = 1 AND task_id IS NOT NULL) FROM proposals"
                       " WHERE iteration = ?", (iteration,))
    n, valid, admitted = rows[0] if rows else (0, 0, 0)
    return int(n or 0), int(valid or 0), int(admitted or 0)


def final_proposals(store: RunStore, after_iteration: int = -1, limit: int = 100_000) -> list[ProposalRecord]:
    """Proposals recorded after `after_iteration` whose reward is final (invalid, duplicate, or rewarded from the
    solver's answers; not those still waiting for them), oldest first: a proposer trainer's data. A run read as
    it is from before schema version 3 has none."""
    if int(store.meta("schema_version") or 0) < 3:
        return []
    rows = store.query(
        f"SELECT {_COLUMNS} FROM proposals WHERE iteration > ? AND (valid = 0 OR task_id IS NULL"
        " OR solve_rate IS NOT NULL) ORDER BY rowid LIMIT ?", (after_iteration, limit))
    return [ProposalRecord(r[0], int(r[1]), r[2], r[3], r[4], r[5], bool(r[6]), r[7], float(r[8]),
                           None if r[9] is None else float(r[9]), float(r[10]), float(r[11]), r[12], r[13])
            for r in rows]


@dataclass(frozen=True)
class SelfplaySummary:
    """Self-play over a whole run, for `spade status` and `spade report` (per-iteration figures: the metrics)."""

    proposals: int
    valid: int
    admitted: int  # valid, not a duplicate: became a task
    distinct_admitted: int
    mean_learnability: float | None  # over admitted proposals the solver answered
    proposer_updates: int
    league_consults: int
    league_tasks: int
    collapses: int
    past_estimates: int  # new tasks a past solver answered
    solver_minus_past: float | None  # mean over iterations with past-solver estimates
    pass_by_source: dict[str, tuple[float, int]]  # proposer / league / procedural -> (pass rate, rollouts)
    pass_by_mode: dict[str, tuple[float, int]]  # code-reasoning mode -> (pass rate, rollouts)
    recent_reasons: dict[str, int] = field(default_factory=dict)  # reason -> proposals, last third of iterations

    def rows(self) -> list[tuple[str, str]]:
        """(label, value) lines, as status and the report print them."""
        n = self.proposals
        share = lambda k: f"{k / n:.2f}" if n else "—"  # noqa: E731
        fmt = lambda v: "—" if v is None else f"{v:+.3f}"  # noqa: E731
        rows = [("proposals", str(n)), ("  valid (validity rate)", f"{self.valid} ({share(self.valid)})"),
                ("  admitted as tasks", str(self.admitted)),
                ("  distinct tasks per 100 proposals", f"{100 * self.distinct_admitted / n:.1f}" if n else "—"),
                ("  near-duplicate rate (of valid)",
                 f"{(self.valid - self.admitted) / self.valid:.2f}" if self.valid else "—"),
                ("  mean learnability (admitted)",
                 "—" if self.mean_learnability is None else f"{self.mean_learnability:.3f}"),
                ("proposer updates", str(self.proposer_updates)),
                ("league consulted / tasks brought back", f"{self.league_consults} / {self.league_tasks}"),
                ("collapse responses", str(self.collapses)),
                ("past-solver difficulty estimates", str(self.past_estimates)),
                ("  solver minus past solver (pass rate)", fmt(self.solver_minus_past))]
        rows += [(f"pass rate, source {s}", f"{r:.3f} ({k} rollouts)") for s, (r, k) in self.pass_by_source.items()]
        rows += [(f"pass rate, mode {m}", f"{r:.3f} ({k} rollouts)") for m, (r, k) in self.pass_by_mode.items()]
        return rows


def selfplay_summary(store: RunStore) -> SelfplaySummary | None:
    """The run's self-play figures, or None when nothing was ever proposed (or the run, read as it is, predates
    the proposals table: schema version 3)."""
    if int(store.meta("schema_version") or 0) < 3:
        return None
    n, valid, admitted, distinct, learn = store.query(
        "SELECT COUNT(*), COALESCE(SUM(valid), 0), COALESCE(SUM(task_id IS NOT NULL), 0), COUNT(DISTINCT task_id),"
        " AVG(CASE WHEN task_id IS NOT NULL AND solve_rate IS NOT NULL THEN learnability END) FROM proposals")[0]
    if not n:
        return None
    audit = dict(store.query(
        "SELECT kind, COUNT(*) FROM audit WHERE (kind = 'proposer_update' AND result NOT LIKE 'skipped%'"
        " AND result NOT LIKE 'waiting%')"
        " OR kind IN ('league', 'collapse') OR (kind = 'past_solver' AND result LIKE 'past solve rate%')"
        " GROUP BY kind"))
    consults, gain = store.query(
        "SELECT (SELECT COUNT(*) FROM (SELECT iteration FROM metrics WHERE name = 'selfplay/league_consulted'"
        " AND value > 0 UNION SELECT iteration FROM audit WHERE kind = 'league')),"
        " (SELECT AVG(value) FROM metrics WHERE name = 'selfplay/solver_minus_past')")[0]
    by_source = store.query(
        "SELECT CASE WHEN EXISTS (SELECT 1 FROM audit a WHERE a.kind = 'league' AND a.ref = c.task_id"
        " AND a.iteration = c.iteration) THEN 'league'"
        " WHEN c.task_id IN (SELECT task_id FROM proposals WHERE task_id IS NOT NULL) THEN 'proposer'"
        " ELSE 'procedural' END AS source, AVG(e.status = 'passed'), COUNT(*)"
        " FROM candidates c JOIN executions e USING(candidate_id) GROUP BY source ORDER BY source")
    by_mode = store.query(
        "SELECT json_extract(t.json, '$.params.mode') AS mode, AVG(e.status = 'passed'), COUNT(*)"
        " FROM candidates c JOIN executions e USING(candidate_id) JOIN tasks t ON t.task_id = c.task_id"
        " WHERE json_extract(t.json, '$.kind') = 'code_reasoning' GROUP BY mode ORDER BY mode")
    return SelfplaySummary(
        int(n), int(valid), int(admitted), int(distinct), None if learn is None else float(learn),
        int(audit.get("proposer_update", 0)), int(consults), int(audit.get("league", 0)),
        int(audit.get("collapse", 0)), int(audit.get("past_solver", 0)), None if gain is None else float(gain),
        {str(s): (float(r), int(k)) for s, r, k in by_source},
        {str(m): (float(r), int(k)) for m, r, k in by_mode if m is not None},
        dict(store.query(
            "SELECT reason, COUNT(*) FROM proposals WHERE iteration >= (SELECT MAX(iteration) - (MAX(iteration)"
            " - MIN(iteration)) / 3 FROM proposals) GROUP BY reason ORDER BY 2 DESC, 1")))
