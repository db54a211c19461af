"""Reads of self-play's proposals table (written with each iteration by RunStore.commit_iteration).

In: a RunStore. Out: what spade.selfplay asks of the past: recent proposals (for near-duplicates and as examples),
the proposer's training examples (highest reward first) and the league's candidates (tasks proposed by earlier
weights, with the solver's pass history on them); for the environment API (spade.env), the proposals still waiting
for the solver's answers, those filed under an iteration, and those whose reward is final.
"""

from __future__ import annotations

from spade.store.db import RunStore
from spade.store.iteration import ProposalRecord

_COLUMNS = ("proposal_id, iteration, checkpoint, model, mode, task_id, valid, reason, similarity, solve_rate,"
            " learnability, reward, prompt, completion")


def recent_programs(store: RunStore, limit: int) -> list[tuple[str, str]]:
    """(task_id, completion) of the newest valid proposals, newest first."""
    return [(r[0], r[1]) for r in store.query(
        "SELECT task_id, completion FROM proposals WHERE valid = 1 AND task_id IS NOT NULL"
        " ORDER BY rowid DESC LIMIT ?", (limit,))]


def proposer_examples(store: RunStore, after_iteration: int, min_reward: float, limit: int) -> list[tuple[str, str, float]]:
    """(prompt JSON, completion, reward) of proposals made after `after_iteration` whose reward exceeds
    `min_reward`, best first."""
    return [(r[0], r[1], float(r[2])) for r in store.query(
        "SELECT prompt, completion, reward FROM proposals WHERE iteration > ? AND reward > ?"
        " ORDER BY reward DESC, rowid LIMIT ?", (after_iteration, min_reward, limit))]


def league_candidates(store: RunStore, current: str | None, limit: int) -> list[tuple[str, str | None]]:
    """(task_id, checkpoint) of valid proposals made by weights other than `current`, newest first."""
    return [(r[0], r[1]) for r in store.query(
        "SELECT task_id, checkpoint FROM proposals WHERE valid = 1 AND task_id IS NOT NULL"
        " AND COALESCE(checkpoint, '') != ? ORDER BY rowid DESC LIMIT ?", (current or "", limit))]


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
