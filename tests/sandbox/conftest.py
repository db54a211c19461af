"""Shared fixtures: one strict pool for the module, and the tasks hostile candidates attack.

Everything here runs real sandboxes (bubblewrap, seccomp, uid drop); `pytest -q tests/sandbox` runs it all,
with small time limits so the suite stays well under a minute on 2 cores.
"""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from spade.config import ExecutorConfig
from spade.records import Task, TestCase
from spade.sandbox import SandboxPool

LIMIT = 0.5
CFG = ExecutorConfig(workers=2, timeout=6.0, time_floor_s=LIMIT, memory_limit="256m")
CORRECT = 'def solve(n):\n    return "SECRET-%d" % (n * 7919 % 100003)\n'


def secret_task() -> Task:
    """Expected values are strings a candidate cannot guess without computing them (or peeking)."""
    cases = tuple(TestCase((n,), f"SECRET-{n * 7919 % 100003}") for n in (3, 11, 42, 97))
    return Task("secret", "format a checksum", "def solve(n: int) -> str:", "solve", 0.5,
                test_cases=cases[:2], hidden_test_cases=cases[2:])


@pytest.fixture(scope="session")
def pool():
    with SandboxPool(CFG) as p:
        yield p


def kill_each_new_worker(pool, times: int, after_s: float):
    """In the background, `times` times: wait until the one-worker `pool` has a ready worker not killed yet and a
    job holds it (its free queue is empty: a worker killed while idle would be replaced before the job instead),
    give it `after_s` more, then SIGKILL it. Returns the thread; its `killed` attribute lists the pids."""
    seen: set[int] = set()

    def loop():
        for _ in range(times):
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                (pid,) = pool.worker_pids()  # a successor is listed once it is ready
                if pid not in seen and pool._free.empty():
                    break
                time.sleep(0.01)
            seen.add(pid)
            time.sleep(after_s)
            os.kill(pid, signal.SIGKILL)

    thread = threading.Thread(target=loop, daemon=True)
    thread.killed = seen  # type: ignore[attr-defined]
    thread.start()
    return thread

