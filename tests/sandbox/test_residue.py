"""Residue across jobs and memory outside the limits (DESIGN.md §3): what one candidate leaves or holds must not
reach the next candidate on the same worker, nor escape the memory limit.

Each test runs on a pool of one worker, so the next job is sure to land where the previous one ran.
"""

from __future__ import annotations

import pytest

from spade.sandbox import Job, OutcomeKind, SandboxPool
from tests.sandbox.conftest import CFG, CORRECT, LIMIT, secret_task

MARKER_DIGITS = 7919 * 104729  # the marker is "PREVJOB-" + these digits; the scanner never builds that string
MARKER = f"PREVJOB-{MARKER_DIGITS}"

# Reads every readable mapping of its own process (ctypes over /proc/self/maps, in 1 MiB slices) and counts
# places holding "PREVJOB-" followed by the marker's digits. Both halves exist in its memory, never joined.
SCANNER = '''
import ctypes
def scan(digits):
    prefix, want, hits, scanned = b"PREV" + b"JOB-", str(digits).encode(), 0, 0
    for line in open("/proc/self/maps").read().splitlines():
        parts = line.split()
        lo, hi = (int(x, 16) for x in parts[0].split("-"))
        if parts[1][0] != "r" or (len(parts) > 5 and parts[5].startswith("[v")):
            continue
        for start in range(lo, hi, 1 << 20):
            data = ctypes.string_at(start, min(hi - start, (1 << 20) + 64))
            scanned += len(data)
            i = data.find(prefix)
            while i >= 0:
                hits += data[i + 8 : i + 8 + len(want)] == want
                i = data.find(prefix, i + 1)
    return [hits, scanned > 1 << 20]
'''


@pytest.fixture(scope="module")
def solo():
    with SandboxPool(CFG.model_copy(update={"workers": 1})) as pool:
        yield pool


def _run(pool: SandboxPool, code: str, entry: str = "f", args: tuple = ()) -> Job:
    return pool.run(Job(code, entry, (args,), (5.0,), CFG.memory_bytes, total_timeout=10.0))


def test_the_scanner_finds_a_marker_in_its_own_memory(solo):
    # The control: the same scan does find the marker when the candidate's own process holds it.
    code = SCANNER.replace("def scan(digits):", f"KEEP = 'PREVJOB-' + str({MARKER_DIGITS})\ndef scan(digits):")
    assert _run(solo, code, "scan", (MARKER_DIGITS,)).values == [[1, True]]


def test_a_candidate_scanning_its_memory_finds_nothing_of_the_previous_job(solo):
    # The previous job's code, inputs and returned values all hold the marker; the next candidate forks from
    # a process that never held any of them.
    writer = f"CODE = {MARKER!r}\ndef f(x):\n    return [x + '-' + str(i) for i in range(50)]\n"
    raw = solo.run(Job(writer, "f", ((MARKER,), (MARKER,)), (LIMIT, LIMIT), CFG.memory_bytes))
    assert raw.values[0][0] == MARKER + "-0"
    assert _run(solo, SCANNER, "scan", (MARKER_DIGITS,)).values == [[0, True]]
    assert solo.score(secret_task(), CORRECT).score == 1.0


SYSV = '''
import ctypes, os
def f():
    libc = ctypes.CDLL(None, use_errno=True)
    out = {}
    for name, call in (("shmget", lambda: libc.shmget(0, 768 << 20, 0o1666)),
                       ("msgget", lambda: libc.msgget(0, 0o1666)),
                       ("semget", lambda: libc.semget(0, 1, 0o1666))):
        ctypes.set_errno(0)
        out[name] = [call(), ctypes.get_errno()]
    try:
        os.memfd_create("hold")
        out["memfd_create"] = "created"
    except OSError as exc:
        out["memfd_create"] = exc.errno
    try:
        rt = ctypes.CDLL("librt.so.1", use_errno=True)
        ctypes.set_errno(0)
        out["mq_open"] = [rt.mq_open(b"/q", os.O_CREAT | os.O_RDWR, 0o600, None), ctypes.get_errno()]
    except OSError:
        out["mq_open"] = "no librt"
    return out
'''


def test_sysv_ipc_mqueues_and_memfd_are_refused(solo):
    (got,) = _run(solo, SYSV).values
    assert got["shmget"] == [-1, 1] and got["msgget"] == [-1, 1] and got["semget"] == [-1, 1], got  # EPERM
    assert got["memfd_create"] == 1, got
    assert got["mq_open"] in ([-1, 1], "no librt"), got
    assert solo.score(secret_task(), CORRECT).score == 1.0


def test_shared_memory_cannot_hold_memory_past_the_limit_nor_reach_the_next_candidate(solo):
    # shmget + shmat, fill, detach: on a host that allowed it, 768 MiB would stay held under a 256 MiB limit.
    holder = ('import ctypes\n'
              'def f():\n'
              '    libc = ctypes.CDLL(None, use_errno=True)\n'
              '    libc.shmat.restype = ctypes.c_void_p\n'
              '    shm = libc.shmget(0x5ade, 768 << 20, 0o1666)\n'
              '    if shm < 0:\n'
              '        return "refused"\n'
              '    addr = libc.shmat(shm, None, 0)\n'
              '    ctypes.memset(addr, 1, 768 << 20)\n'
              '    libc.shmdt(ctypes.c_void_p(addr))\n'
              '    return "held"\n')
    raw = _run(solo, holder)
    assert raw.values == ["refused"] and raw.peak_memory_kb < CFG.memory_bytes // 1024
    seen = _run(solo, "def f():\n    return open('/proc/sysvipc/shm').read().splitlines()[1:]\n")
    assert seen.values == [[]]
    assert solo.score(secret_task(), CORRECT).score == 1.0


def test_memfd_pages_written_with_write_are_refused(solo):
    code = ('import os\n'
            'def f():\n'
            '    fd = os.memfd_create("big")\n'
            '    for _ in range(768):\n'
            '        os.write(fd, b"x" * (1 << 20))\n'
            '    return "held"\n')
    raw = _run(solo, code)
    assert raw.outcomes[0].kind is OutcomeKind.EXCEPTION and "PermissionError" in raw.outcomes[0].error
    assert solo.score(secret_task(), CORRECT).score == 1.0
