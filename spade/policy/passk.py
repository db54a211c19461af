"""pass@k with the unbiased estimator of Chen et al. (2021).

In: n samples of which c passed, and k. Out: 1 - C(n-c, k) / C(n, k), the chance that k samples drawn without
replacement include a pass, computed as a product so large n never overflows or loses precision.
"""

from __future__ import annotations

from collections.abc import Iterable


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k for one task. Raises ValueError on impossible counts (our bug, not a user mistake)."""
    if not (0 <= c <= n and 1 <= k <= n):
        raise ValueError(f"pass_at_k needs 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")
    if n - c < k:
        return 1.0
    # C(n-c, k) / C(n, k) = prod_{i=n-c+1}^{n} (1 - k / i)
    miss = 1.0
    for i in range(n - c + 1, n + 1):
        miss *= 1.0 - k / i
    return 1.0 - miss


def mean_pass_at_k(counts: Iterable[tuple[int, int]], k: int) -> float:
    """Mean pass@k over tasks given (n, c) pairs; tasks with fewer than k samples are an error."""
    values = [pass_at_k(n, c, k) for n, c in counts]
    return sum(values) / len(values) if values else 0.0
