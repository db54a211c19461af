"""Reads of self-play's proposals table (written with each iteration by RunStore.commit_iteration).

In: a RunStore. Out: what spade.selfplay asks of the past: recent proposals (for near-duplicates and as examples),
the proposer's training examples (highest reward first) and the league's candidates (tasks proposed by earlier
weights, with the solver's pass history on them).
"""

from __future__ import annotations

from spade.store.db import RunStore


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
