"""Proposer tests: parsing is pure; proposing runs against loopback servers and validation in the real sandbox.

`pytest -q tests/proposer` runs the fast ones; `-m slow` adds the real llama.cpp model proposing tasks.
"""

import pytest

from spade.config import ExecutorConfig
from spade.records import Task, TestCase
from spade.sandbox import SandboxPool
from tests.serving.helpers import print_report, shared_llama_server


@pytest.fixture(scope="package")
def pool():
    with SandboxPool(ExecutorConfig(workers=2)) as p:
        yield p


@pytest.fixture(scope="session")
def llama_server():
    return shared_llama_server()


@pytest.fixture(scope="session")
def store_examples():
    """Tasks as the task store holds them (validated, with references), for k-shot prompts."""
    return [
        Task("ex-add", "Return the sum of two integers.", "def add(a: int, b: int) -> int:", "add", 0.1,
             ("arithmetic",), (TestCase((1, 2), 3), TestCase((5, -1), 4)), (TestCase((0, 0), 0),),
             reference_solution="def add(a: int, b: int) -> int:\n    return a + b\n"),
        Task("ex-count", "Count the vowels (a, e, i, o, u) in a lowercase string.", "def count_vowels(s: str) -> int:",
             "count_vowels", 0.3, ("strings",), (TestCase(("banana",), 3),), (TestCase(("xyz",), 0),),
             reference_solution="def count_vowels(s: str) -> int:\n    return sum(c in 'aeiou' for c in s)\n"),
        Task("ex-max", "Return the largest element of a non-empty list of integers.",
             "def largest(xs: list[int]) -> int:", "largest", 0.2, ("lists",), (TestCase(([3, 9, 2],), 9),),
             (TestCase(([-5],), -5),), reference_solution="def largest(xs: list[int]) -> int:\n    return max(xs)\n"),
    ]


def pytest_terminal_summary(terminalreporter):
    print_report(terminalreporter)
