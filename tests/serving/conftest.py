"""Serving tests: the OpenAI-compatible client against scripted loopback servers and a real llama.cpp server.

`pytest -q tests/serving` runs the fast ones; `-m slow` adds those that sample from the real server.
"""

import pytest

from tests.serving.helpers import print_report, shared_llama_server


@pytest.fixture(scope="session")
def llama_server():
    return shared_llama_server()


def pytest_terminal_summary(terminalreporter):
    print_report(terminalreporter)
