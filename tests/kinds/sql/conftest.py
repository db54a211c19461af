"""Validated SQL tasks shared by this folder's tests (the `pool` fixture comes from tests/kinds/conftest.py)."""

import pytest

from spade.config import GenerationConfig
from spade.generate.procedural import draft_task
from spade.kinds import validate_drafts


def validated(pool, family: str, difficulty: float, seed: int = 0):
    (outcome,) = validate_drafts([draft_task(family, difficulty, seed, 0, 3, 5)], pool, GenerationConfig())
    assert outcome.accepted, outcome.details
    return outcome.task


@pytest.fixture(scope="package")
def filter_task(pool):
    """Unordered: names of the rows in one group (a first-step question), on 8 databases."""
    return validated(pool, "sql_filter", 0.1)


@pytest.fixture(scope="package")
def ordered_task(pool):
    """Ordered: a GROUP BY ... ORDER BY question."""
    return validated(pool, "sql_aggregate", 0.75)
