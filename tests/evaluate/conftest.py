"""Shared fixtures for the evaluate tests: one real sandbox pool per session (its workers are pre-warmed)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from spade.config import ExecutorConfig


@pytest.fixture(scope="session")
def pool() -> Iterator[object]:
    from spade.sandbox import SandboxPool  # only the tests that execute code need the sandbox

    with SandboxPool(ExecutorConfig()) as p:
        yield p
