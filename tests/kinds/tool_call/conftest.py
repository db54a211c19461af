"""Shared tool-call tasks: drafted from the families and validated once through the real sandbox."""

from __future__ import annotations

import pytest

from spade.config import GenerationConfig
from spade.generate.procedural import draft_task
from spade.kinds import validate_drafts


@pytest.fixture(scope="package")
def shop_task(pool):
    """A two-call plan: find_user by email, then create_order with "$0.id" (the id differs per test's state)."""
    outcome = validate_drafts([draft_task("tool_call_shop", 0.5, 0, 0, 3, 5)], pool, GenerationConfig())[0]
    assert outcome.accepted, outcome.details
    return outcome.task
