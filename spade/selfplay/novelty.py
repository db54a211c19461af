"""Is a proposal a copy of the example its prompt showed?

In: a proposal's program (validated, so it parses) and the examples its prompt showed (earlier proposals or the
built-in ones: a function and its calls). Out: the highest similarity of the program to any shown example's
function: Jaccard over the AST shingles the dedup index uses (node types in order; names and constants ignored),
computed exactly on the two sets. A 135M proposer copies the one example it is shown far more often than it writes
a new function (docs/selfplay.md); a copy is validated like any task but admitted as nothing new.
"""

from __future__ import annotations

from collections.abc import Sequence

from spade.dedup.normalize import shingles
from spade.selfplay.proposal import parse_proposal


def example_program(example: str) -> str | None:
    """The function of a shown example (its text as the prompt shows it, from `def f(`); None when it has none."""
    parsed = parse_proposal(example, prefilled=False)
    return None if isinstance(parsed, str) else parsed.program


def code_similarity(a: str, b: str) -> float:
    """Jaccard similarity of the two programs' AST shingles (1.0 for the same shape, names and constants aside)."""
    sa, sb = shingles("", a), shingles("", b)
    union = len(sa | sb)
    return len(sa & sb) / union if union else 1.0


def example_similarity(program: str, examples: Sequence[str]) -> float:
    """The program's highest similarity to a shown example's function (0.0 when none was shown)."""
    shown = [p for p in map(example_program, examples) if p is not None]
    return max((code_similarity(program, p) for p in shown), default=0.0)


__all__ = ["code_similarity", "example_program", "example_similarity"]
