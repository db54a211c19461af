"""Dedup: exact and near-duplicate detection of tasks (normalize, minhash, index)."""

from spade.dedup.index import DedupIndex, DedupVerdict

__all__ = ["DedupIndex", "DedupVerdict"]
