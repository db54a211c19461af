"""MinHash signatures and LSH banding: estimate Jaccard similarity of shingle sets without comparing the sets.

In: sets of strings. Out: a uint64 signature per set (num_perm values); the share of equal positions between two
signatures estimates the sets' Jaccard similarity. Bands of rows give the LSH buckets that find candidates.
"""

from __future__ import annotations

import hashlib

import numpy as np

_PRIME = np.uint64((1 << 61) - 1)


class MinHasher:
    """Universal hashes (a·x + b) mod p over 32-bit shingle hashes; a, b < 2^31 so nothing overflows 64 bits."""

    def __init__(self, num_perm: int = 128, seed: int = 1) -> None:
        rng = np.random.default_rng(seed)
        self.num_perm = num_perm
        self._a = rng.integers(1, 1 << 31, size=num_perm, dtype=np.uint64)
        self._b = rng.integers(0, 1 << 31, size=num_perm, dtype=np.uint64)

    def signature(self, items: set[str]) -> np.ndarray:
        if not items:
            return np.full(self.num_perm, np.iinfo(np.uint64).max, dtype=np.uint64)
        x = np.array([int.from_bytes(hashlib.blake2b(s.encode(), digest_size=4).digest(), "little") for s in sorted(items)],
                     dtype=np.uint64)
        return ((np.outer(x, self._a) + self._b) % _PRIME).min(axis=0)


def similarity(a: np.ndarray, b: np.ndarray) -> float:
    """Estimated Jaccard similarity of the sets behind two signatures."""
    return float(np.mean(a == b))


def bands(signature: np.ndarray, n_bands: int) -> list[bytes]:
    """LSH bucket keys: one per band of rows; similar sets share at least one with high probability."""
    rows = len(signature) // n_bands
    return [i.to_bytes(2, "little") + signature[i * rows:(i + 1) * rows].tobytes() for i in range(n_bands)]
