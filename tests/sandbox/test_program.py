"""Program jobs: whole programs on stdin/stdout under the same isolation and limits as function candidates.

Each hostile program runs on a one-worker pool; after it, the host is unchanged, the worker's process tree holds
nothing extra, and a correct program and a correct function candidate still pass on the same worker.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from spade.errors import SandboxError
from spade.sandbox import ProgramJob, ProgramVerdict, SandboxPool
from tests.sandbox.conftest import CFG, CORRECT, secret_task
from tests.sandbox.test_pool import _descendants

SENTINEL = Path("/work/main/.sandbox-sentinel-do-not-delete")
SUM = "import sys\nnums = list(map(int, sys.stdin.read().split()))\nprint(sum(nums))\n"
LIMIT = 1.0


@pytest.fixture(scope="module")
def one():
    with SandboxPool(CFG.model_copy(update={"workers": 1})) as pool:
        yield pool


def run(pool: SandboxPool, code: str, stdin: bytes = b"", **kw) -> object:
    kw.setdefault("time_limit_s", LIMIT)
    kw.setdefault("memory_bytes", CFG.memory_bytes)
    return pool.run_program(ProgramJob(code, stdin, **kw))


def still_works(pool: SandboxPool) -> None:
    good = run(pool, SUM, b"1 2 3\n40\n")
    assert good.ok and good.stdout == b"46\n" and good.stderr == b"", good
    assert pool.score(secret_task(), CORRECT).score == 1.0


def test_a_program_reads_stdin_and_writes_stdout_and_stderr_apart(one):
    out = run(one, "import sys\nname = input()\nprint('hi', name)\nprint('note', file=sys.stderr)\n", b"ada\n")
    assert out.verdict is ProgramVerdict.EXITED and out.exit_code == 0
    assert (out.stdout, out.stderr) == (b"hi ada\n", b"note\n")
    assert out.cpu_time_s > 0 and out.peak_memory_kb > 0 and out.wall_time_s < LIMIT


def test_exit_codes_and_uncaught_exceptions_are_reported_as_python_would(one):
    assert run(one, "import sys\nsys.exit(3)\n").exit_code == 3
    assert run(one, "raise SystemExit('bye')\n").exit_code == 1
    crash = run(one, "def f():\n    raise ValueError('boom')\nf()\n")
    assert crash.verdict is ProgramVerdict.EXITED and crash.exit_code == 1
    assert crash.stderr.startswith(b"Traceback") and b'File "main.py", line 2, in f' in crash.stderr
    assert b"ValueError: boom" in crash.stderr and b"/sbx/" not in crash.stderr
    syntax = run(one, "print(1\n")
    assert syntax.exit_code == 1 and b"SyntaxError" in syntax.stderr


def test_stdin_larger_than_a_pipe_is_fed_whole_and_an_unread_one_does_not_block(one):
    big = b"1\n" * 2_000_000
    out = run(one, SUM, big, time_limit_s=5.0)
    assert out.ok and out.stdout == b"2000000\n", out
    ignores = run(one, "print('done')\n", big)
    assert ignores.ok and ignores.stdout == b"done\n"


def test_files_are_placed_in_the_working_directory_and_bad_paths_are_refused(one):
    out = run(one, "print(open('data/a.txt').read().upper())\n", files=(("data/a.txt", b"abc"),))
    assert out.ok and out.stdout == b"ABC\n"
    for bad in ("/etc/passwd", "../x", "a/../../x", "", "a//b", "./a"):
        with pytest.raises(SandboxError, match="file path"):
            ProgramJob("pass", files=((bad, b"x"),))


def test_a_file_left_by_one_program_is_gone_for_the_next(one):
    assert run(one, "open('left.txt', 'w').write('secret')\n").ok
    out = run(one, "import os\nprint(sorted(os.listdir('.')))\n")
    assert out.stdout == b"[]\n", out


HOSTILE = {
    "cpu_loop": ("while True:\n    pass\n", ProgramVerdict.TIMEOUT),
    "sleep_ignoring_signals": ("import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(60)\n",
                               ProgramVerdict.TIMEOUT),
    "blocks_on_stdin_forever": ("import os\nos.close(0)\nimport time\ntime.sleep(60)\n", ProgramVerdict.TIMEOUT),
    "closes_its_pipes_and_loops": ("import os\nfor fd in range(64):\n    try: os.close(fd)\n    except OSError: pass\n"
                                   "while True: pass\n", None),
    "memory_bomb": ("x = []\nwhile True:\n    x.append(' ' * (1 << 20))\n", ProgramVerdict.MEMORY),
    "fork_bomb": ("import os\nwhile True:\n    os.fork()\n", ProgramVerdict.EXITED),
    "exec_a_shell": ("import os\nos.execv('/bin/sh', ['sh', '-c', 'echo pwned'])\n", ProgramVerdict.EXITED),
    "socket_connect": ("import socket\nsocket.create_connection(('127.0.0.1', 22), timeout=0.2)\n",
                       ProgramVerdict.EXITED),
    "writes_and_deletes_host_paths": (
        f"import os\nfor p in ('/work/main/HACKED', '/root/HACKED', '/etc/HACKED', '/usr/HACKED'):\n"
        f"    try: open(p, 'w').write('x')\n    except OSError: pass\n"
        f"os.unlink({str(SENTINEL)!r})\n", ProgramVerdict.EXITED),
    "kills_parent_and_everyone": ("import os, signal\nfor pid in (os.getppid(), 1, -1, 2, 0):\n"
                                  "    try: os.kill(pid, signal.SIGKILL)\n    except OSError: pass\n", None),
    "ptrace_via_ctypes": ("import ctypes\nctypes.CDLL(None).ptrace(16, 1, 0, 0)\n", ProgramVerdict.KILLED),
    "background_threads_outlive_main": (
        "import threading, time\ndef spin():\n    while True: pass\n"
        "for _ in range(4): threading.Thread(target=spin, daemon=True).start()\nprint('main done')\n",
        ProgramVerdict.EXITED),
    "forges_control_frames": ("import os\nfor fd in range(3, 64):\n"
                              "    try: os.write(fd, b'\\x00\\x00\\x00\\x01M' * 4)\n    except OSError: pass\n"
                              "print('ok')\n", None),
}


@pytest.fixture(scope="module", autouse=True)
def sentinel():
    SENTINEL.write_text("keep")
    yield
    SENTINEL.unlink(missing_ok=True)


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_program_gets_its_verdict_and_leaves_nothing_behind(one, name):
    code, verdict = HOSTILE[name]
    limit = 4.0 if name == "memory_bomb" else LIMIT  # filling 256 MB takes CPU a loaded machine may not give fast
    started = time.monotonic()
    out = run(one, code, time_limit_s=limit)
    assert time.monotonic() - started < limit + 3, out
    if verdict is not None:
        assert out.verdict is verdict, out
    assert out.verdict is not ProgramVerdict.INTERNAL_ERROR, out
    assert SENTINEL.read_text() == "keep"
    assert not any(Path(p).exists() for p in ("/work/main/HACKED", "/root/HACKED", "/etc/HACKED", "/usr/HACKED"))
    still_works(one)
    (worker,) = one.worker_pids()
    for _ in range(100):  # bwrap's two processes, the template, the watcher and its spare child; nothing else
        tree = _descendants(worker)
        if len(tree) <= 5 and all(state != "Z" for _, state in tree):
            break
        time.sleep(0.02)
    assert len(tree) <= 5 and all(state != "Z" for _, state in tree), tree


def test_refused_calls_surface_as_the_programs_own_errors(one):
    sock = run(one, HOSTILE["socket_connect"][0])
    assert sock.exit_code == 1 and b"PermissionError" in sock.stderr
    fork = run(one, HOSTILE["fork_bomb"][0])
    assert fork.exit_code == 1 and b"PermissionError" in fork.stderr
    ptrace = run(one, HOSTILE["ptrace_via_ctypes"][0])
    assert ptrace.signal == 31 and "syscall_denied" in ptrace.events  # SIGSYS from the seccomp filter


def test_a_forged_memory_frame_is_not_a_verdict_and_is_reported(one):
    out = run(one, HOSTILE["forges_control_frames"][0])
    assert out.ok and out.stdout == b"ok\n" and "protocol_violation" in out.events, out


def test_the_memory_limit_holds_and_is_the_verdict(one):
    out = run(one, HOSTILE["memory_bomb"][0], time_limit_s=4.0)
    assert out.verdict is ProgramVerdict.MEMORY and out.exit_code == 1 and b"MemoryError" in out.stderr
    assert out.peak_memory_kb * 1024 <= CFG.memory_bytes


def test_a_timed_out_program_keeps_what_it_printed(one):
    out = run(one, "import sys\nprint('partial', flush=True)\nwhile True: pass\n")
    assert out.verdict is ProgramVerdict.TIMEOUT and out.exit_code is None and out.stdout == b"partial\n"
    assert LIMIT <= out.wall_time_s < LIMIT + 1


def test_an_output_flood_is_bounded_and_counted(one):
    flood = "import os\nchunk = b'x' * 65536\nfor _ in range(800):\n    os.write(1, chunk)\n    os.write(2, chunk)\n"
    out = run(one, flood, time_limit_s=5.0, max_output_bytes=4096)
    assert out.ok, out
    assert len(out.stdout) == len(out.stderr) == 4096
    assert out.stdout_bytes == out.stderr_bytes == 800 * 65536 and "output_flood" in out.events


def test_programs_and_function_candidates_share_workers_in_parallel():
    with SandboxPool(CFG) as pool:
        jobs = [pool.submit_program(ProgramJob(SUM, f"{i} {i}\n".encode(), time_limit_s=2.0)) for i in range(8)]
        scores = [pool.score(secret_task(), CORRECT).score for _ in range(3)]
        assert [f.result().stdout for f in jobs] == [f"{2 * i}\n".encode() for i in range(8)]
        assert scores == [1.0] * 3
