"""The dedup index: is a new task an exact or a near duplicate of one already seen?

In: tasks (Task or TaskDraft: anything with task_id, description, signature, reference_solution). Out: a
DedupVerdict per check. Exact: same normalised description and same canonical reference. Near: MinHash
estimate of Jaccard similarity over description and AST shingles at or above the threshold. Build it from the
run database's tasks on resume and from the evaluation set, so no evaluation problem leaks into training.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, Protocol

import numpy as np

from spade.dedup.minhash import MinHasher, bands, similarity
from spade.dedup.normalize import exact_key, shingles


class TaskLike(Protocol):
    task_id: str
    description: str
    signature: str
    reference_solution: str | None


@dataclass(frozen=True, slots=True)
class DedupVerdict:
    duplicate: bool
    kind: Literal["exact", "near"] | None = None
    of: str | None = None
    similarity: float | None = None


class DedupIndex:
    """Exact keys in a dict; near-duplicates through LSH buckets, confirmed by the signature estimate."""

    def __init__(self, threshold: float = 0.85, num_perm: int = 128, n_bands: int = 16) -> None:
        if not 0 < threshold <= 1:
            raise ValueError(f"threshold must be in (0, 1], got {threshold}")
        if num_perm % n_bands:
            raise ValueError(f"num_perm ({num_perm}) must be a multiple of n_bands ({n_bands})")
        self.threshold = threshold
        self.n_bands = n_bands
        self._hasher = MinHasher(num_perm)
        self._exact: dict[str, str] = {}
        self._signatures: dict[str, np.ndarray] = {}
        self._buckets: dict[bytes, list[str]] = defaultdict(list)

    @classmethod
    def from_tasks(cls, tasks: Iterable[TaskLike], threshold: float = 0.85) -> DedupIndex:
        index = cls(threshold)
        for task in tasks:
            index.add(task)
        return index

    def __len__(self) -> int:
        return len(self._signatures)

    def check(self, task: TaskLike) -> DedupVerdict:
        key = exact_key(task.description, _code(task))
        if key in self._exact:
            return DedupVerdict(True, "exact", self._exact[key], 1.0)
        sig = self._signature(task)
        best_id, best = None, 0.0
        for candidate in {c for b in bands(sig, self.n_bands) for c in self._buckets.get(b, ())}:
            s = similarity(sig, self._signatures[candidate])
            if s > best or (s == best and best_id is not None and candidate < best_id):
                best_id, best = candidate, s
        if best_id is not None and best >= self.threshold:
            return DedupVerdict(True, "near", best_id, best)
        return DedupVerdict(False)

    def add(self, task: TaskLike) -> None:
        """Index a task; adding the same task_id again replaces nothing and changes nothing."""
        if task.task_id in self._signatures:
            return
        self._exact.setdefault(exact_key(task.description, _code(task)), task.task_id)
        sig = self._signature(task)
        self._signatures[task.task_id] = sig
        for b in bands(sig, self.n_bands):
            self._buckets[b].append(task.task_id)

    def _signature(self, task: TaskLike) -> np.ndarray:
        return self._hasher.signature(shingles(task.description, _code(task)))


def _code(task: TaskLike) -> str:
    # Without a reference the signature is the only code we have; it still separates different interfaces.
    return task.reference_solution or task.signature
