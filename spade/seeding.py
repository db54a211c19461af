"""Seeds derived from the run's seed: a pure function of (run seed, iteration, purpose), so the same run seed redoes
an iteration identically (planning, sampling, updates and evaluation each draw their own)."""

from __future__ import annotations

import hashlib


def seeded(run_seed: int, iteration: int, purpose: str) -> int:
    """A per-iteration, per-purpose 32-bit seed."""
    digest = hashlib.sha256(f"{run_seed}|{iteration}|{purpose}".encode()).digest()
    return int.from_bytes(digest[:4], "little")
