"""Output diversity, the signal of self-play collapse (outputs become uniform, diversity falls).

In: completions grouped by task. Out: `Diversity`: the share of distinct completions among each task's samples
(after whitespace is normalised), averaged over tasks with two or more samples, and the near-duplicate rate: the
share of sample pairs within a task whose token-set Jaccard similarity is at least NEAR. A sample's text is cut
to MAX_CHARS before it is compared. `distinct_indices` keeps the first of each group of near-duplicates (the
proposer's update trains on distinct proposals only).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

MAX_CHARS = 4000
NEAR = 0.9


@dataclass(frozen=True, slots=True)
class Diversity:
    distinct: float  # mean over tasks of distinct completions / samples (1.0: all differ)
    near_duplicate_rate: float  # share of same-task pairs at least NEAR alike
    tasks: int  # tasks with two or more samples (the others say nothing about diversity)


def _tokens(text: str) -> frozenset[str]:
    return frozenset(text[:MAX_CHARS].split())


def _alike(a: frozenset[str], b: frozenset[str]) -> bool:
    union = len(a | b)
    return (len(a & b) / union if union else 1.0) >= NEAR


def distinct_indices(texts: Sequence[str]) -> list[int]:
    """Indices of `texts` in order, each kept unless it is a near-duplicate of one kept before it."""
    kept: list[int] = []
    tokens = [_tokens(t) for t in texts]
    for i, t in enumerate(tokens):
        if not any(_alike(t, tokens[j]) for j in kept):
            kept.append(i)
    return kept


def diversity(completions: Mapping[str, Sequence[str]]) -> Diversity:
    shares, near, pairs, tasks = [], 0, 0, 0
    for texts in completions.values():
        if len(texts) < 2:
            continue
        tasks += 1
        normal = [" ".join(t[:MAX_CHARS].split()) for t in texts]
        shares.append(len(set(normal)) / len(normal))
        tokens = [_tokens(t) for t in normal]
        for a, b in combinations(tokens, 2):
            pairs += 1
            near += _alike(a, b)
    return Diversity(sum(shares) / len(shares) if shares else 1.0, near / pairs if pairs else 0.0, tasks)
