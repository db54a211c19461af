"""Adversarial suite: hostile candidates, one property each, covering every class of docs/method.md#threat-model.

Each candidate attacks `secret_task` (expected values it cannot compute honestly without the right code).
It must not pass, the grader must stay alive, the host must be unchanged, and a correct candidate run right
after on the same pool must still score 1.0.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from spade.records import ExecStatus, TestStatus
from spade.sandbox import SandboxPool
from tests.sandbox.conftest import CFG, CORRECT, LIMIT, secret_task

SENTINEL = Path("/work/main/.sandbox-sentinel-do-not-delete")

HOSTILE = {
    # forged verdicts
    "sys_exit_zero": "import sys\ndef solve(n):\n    sys.exit(0)\n",
    "os_exit_zero_in_call": "import os\ndef solve(n):\n    os._exit(0)\n",
    "os_exit_zero_at_load": "import os\nos._exit(0)\ndef solve(n):\n    return 1\n",
    "prints_passed": "def solve(n):\n    print('ALL TESTS PASSED'); print('OK')\n",
    "atexit_handler": "import atexit, os\natexit.register(lambda: os._exit(0))\ndef solve(n):\n    raise SystemExit(0)\n",
    "forges_frames_on_inherited_fds": (
        "import os, json\n"
        "def solve(n):\n"
        "    for fd in range(0, 64):\n"
        "        for p in (b'V\"SECRET-0\"', b'D'):\n"
        "            try: os.write(fd, (len(p)).to_bytes(4, 'big') + p)\n"
        "            except OSError: pass\n"
        "    return 'SECRET-0'\n"),
    # subverted comparison
    "lying_eq_object": "class A:\n    def __eq__(self, o): return True\n    def __ne__(self, o): return False\ndef solve(n):\n    return A()\n",
    "str_subclass_lying_eq": "class S(str):\n    def __eq__(self, o): return True\n    __hash__ = str.__hash__\ndef solve(n):\n    return S('x')\n",
    "int_and_list_subclasses": "class L(list):\n    def __eq__(self, o): return True\ndef solve(n):\n    return L([1])\n",
    "patched_builtins": (
        "import builtins, json\n"
        "builtins.type = lambda *a: str\nbuiltins.isinstance = lambda *a: True\njson.dumps = lambda *a, **k: '\"SECRET\"'\n"
        "class A:\n    def __eq__(self, o): return True\n"
        "def solve(n):\n    return A()\n"),
    # peeking
    "gc_and_frames_peek": (
        "import gc, sys\n"
        "def solve(n):\n"
        "    needle = 'SEC' + 'RET-'\n"
        "    for o in gc.get_objects():\n"
        "        if type(o) is str and o.startswith(needle) and len(o) > 8: return o\n"
        "    f = sys._getframe()\n"
        "    while f:\n"
        "        for v in list(f.f_locals.values()):\n"
        "            if type(v) is str and v.startswith(needle) and len(v) > 8: return v\n"
        "        f = f.f_back\n"
        "    return None\n"),
    "files_proc_env_stdin_peek": (
        "import os, sys\n"
        "def solve(n):\n"
        "    found = [sys.stdin.read(), repr(dict(os.environ))]\n"
        "    for root in ('/work', '/root', '/tmp', '/home'):\n"
        "        for d, _, fs in os.walk(root):\n"
        "            for f in fs[:50]:\n"
        "                try: found.append(open(os.path.join(d, f), errors='ignore').read(100000))\n"
        "                except OSError: pass\n"
        "    for p in os.listdir('/proc'):\n"
        "        for leaf in ('cmdline', 'environ'):\n"
        "            try: found.append(open(f'/proc/{p}/{leaf}', errors='ignore').read())\n"
        "            except OSError: pass\n"
        "    text = '\\n'.join(found)\n"
        "    i = text.find('SEC' + 'RET-')\n"
        "    return text[i:i + 12] if i >= 0 else None\n"),
    # exhaustion
    "cpu_loop": "def solve(n):\n    while True:\n        pass\n",
    "sleep_ignoring_signals": (
        "import signal, time\n"
        "for s in (signal.SIGTERM, signal.SIGALRM, signal.SIGINT, signal.SIGXCPU): signal.signal(s, signal.SIG_IGN)\n"
        "def solve(n):\n    time.sleep(1000)\n"),
    "memory_bomb": "def solve(n):\n    x = []\n    while True:\n        x.append(bytearray(50 << 20))\n",
    "fork_bomb": "import os\ndef solve(n):\n    while True:\n        os.fork()\n",
    "output_flood": "import sys\ndef solve(n):\n    while True:\n        sys.stdout.write('x' * 65536)\n",
    "disk_fill": (
        "def solve(n):\n    with open('/tmp/fill', 'wb') as f:\n        while True:\n            f.write(b'x' * (1 << 20))\n"),
    "huge_return_value": "def solve(n):\n    return 'SECRET-' + 'x' * (20 << 20)\n",
    "deeply_nested_return": "def solve(n):\n    x = []\n    for _ in range(100000):\n        x = [x]\n    return x\n",
    "unserialisable_return": "def solve(n):\n    return (i for i in range(3))\n",
    # escape and side effects
    "socket_connect": (
        "import socket\n"
        "def solve(n):\n    s = socket.create_connection(('127.0.0.1', 22), timeout=0.2)\n    return 'SECRET-0'\n"),
    "writes_and_deletes_host_paths": (
        f"import os\nSENT = {str(SENTINEL)!r}\n"
        "def solve(n):\n"
        "    for p in ('/work/main/HACKED', '/root/HACKED', '/etc/HACKED', '/usr/HACKED'):\n"
        "        try: open(p, 'w').write('x')\n        except OSError: pass\n"
        "    try: os.unlink(SENT)\n    except OSError: pass\n"
        "    return None\n"),
    "kills_parent_and_everyone": (
        "import os, signal\n"
        "def solve(n):\n"
        "    for pid in (os.getppid(), 1, -1, 2, 0):\n"
        "        try: os.kill(pid, signal.SIGKILL)\n        except OSError: pass\n"
        "    return None\n"),
    "daemon_process": (
        "import os, time\n"
        "def solve(n):\n"
        "    if os.fork() == 0:\n        os.setsid(); time.sleep(60)\n"
        "    return None\n"),
    "background_threads": (
        "import threading, os\n"
        "def spin():\n    while True:\n        try: os.write(3, b'\\x00\\x00\\x00\\x02VX')\n        except OSError: pass\n"
        "for _ in range(4): threading.Thread(target=spin, daemon=True).start()\n"
        "def solve(n):\n    return None\n"),
    "ptrace_via_ctypes": (
        "import ctypes\ndef solve(n):\n    ctypes.CDLL(None).ptrace(16, 1, 0, 0)\n    return None\n"),
    "setuid_back_to_root": "import os\ndef solve(n):\n    os.setuid(0)\n    return None\n",
    "exec_a_shell": "import os\ndef solve(n):\n    os.execv('/bin/sh', ['sh', '-c', 'echo SECRET'])\n",
}


@pytest.fixture(scope="module", autouse=True)
def sentinel():
    SENTINEL.write_text("keep")
    yield
    SENTINEL.unlink(missing_ok=True)


def test_suite_is_large_enough():
    assert len(HOSTILE) >= 25


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_candidate_never_passes(pool, name):
    task = secret_task()
    result = pool.score(task, HOSTILE[name], time_limits=[LIMIT] * 4)
    assert result.score == 0.0 and result.status is not ExecStatus.PASSED
    assert SENTINEL.read_text() == "keep"
    assert not any(Path(p).exists() for p in ("/work/main/HACKED", "/root/HACKED", "/etc/HACKED", "/usr/HACKED"))
    after = pool.score(task, CORRECT)
    assert after.score == 1.0, (name, after)


def test_exhaustion_is_reported_as_data(pool):
    task = secret_task()
    loop = pool.score(task, HOSTILE["cpu_loop"])
    assert loop.tests[0].status is TestStatus.TIMEOUT and loop.status is ExecStatus.TIMEOUT, loop
    assert all(t.status is TestStatus.NOT_RUN for t in loop.tests[1:]), loop  # the first timeout ends it
    # Filling 256 MB takes ~0.2 s of CPU per test; give it room so a loaded machine still hits the memory limit first.
    bomb = pool.score(task, HOSTILE["memory_bomb"], time_limits=(4.0,) * len(task.all_tests))
    assert all(t.status is TestStatus.MEMORY for t in bomb.tests), bomb
    flood = pool.score(task, HOSTILE["output_flood"])
    assert "output_flood" in flood.events and flood.output_bytes > 65536
    huge = pool.score(task, HOSTILE["huge_return_value"])
    assert all(t.status is TestStatus.UNENCODABLE for t in huge.tests)


def test_denied_syscall_kills_the_child_and_is_observed(pool):
    result = pool.score(secret_task(), HOSTILE["ptrace_via_ctypes"])
    assert "syscall_denied" in result.events
    assert all(t.status is TestStatus.KILLED for t in result.tests)


def test_fork_is_refused_inside_the_sandbox(pool):
    from spade.sandbox import Job

    code = "import os\ndef f():\n    try:\n        os.fork()\n    except OSError as e:\n        return e.errno\n    return 0\n"
    raw = pool.run(Job(code, "f", ((),), (LIMIT,), 256 << 20))
    assert raw.values == [1]  # EPERM


def test_state_does_not_survive_into_the_next_run(pool):
    from spade.sandbox import Job

    writer = ("import builtins\nopen('/tmp/state', 'w').write('x')\nbuiltins.LEAK = 1\n"
              "def f():\n    global G\n    G = 1\n    return 0\n")
    reader = ("import builtins, os\nG = None\n"
              "def f():\n    return [os.path.exists('/tmp/state'), hasattr(builtins, 'LEAK'), os.listdir('/tmp')]\n")
    for _ in range(4):  # both workers get a writer before a reader
        pool.run(Job(writer, "f", ((),), (LIMIT,), 256 << 20))
    for _ in range(4):
        assert pool.run(Job(reader, "f", ((),), (LIMIT,), 256 << 20)).values == [[False, False, []]]


def test_a_deep_locked_tree_in_tmp_is_wiped_before_the_next_run(pool):
    from spade.sandbox import Job

    writer = ("import os\n"
              "def f():\n"
              "    os.chdir('/tmp')\n"
              "    for i in range(400):\n"
              "        os.mkdir('d')\n"
              "        os.chdir('d')\n"
              "        open('x', 'w').write('x')\n"
              "    os.symlink('/tmp', '/tmp/loop')\n"
              "    os.mkdir('/tmp/locked')\n"
              "    open('/tmp/locked/y', 'w').write('y')\n"
              "    os.chmod('/tmp/locked', 0)\n"
              "    return 0\n")
    reader = "import os\ndef f():\n    return sorted(os.listdir('/tmp'))\n"
    for _ in range(4):  # both workers get a writer before a reader
        assert pool.run(Job(writer, "f", ((),), (LIMIT,), 256 << 20)).values == [0]
    for _ in range(4):
        assert pool.run(Job(reader, "f", ((),), (LIMIT,), 256 << 20)).values == [[]]


def test_a_candidate_cannot_find_the_previous_candidates_values_among_live_objects():
    from spade.sandbox import Job

    marker = "MARKER-7f3a9c-" + "x" * 8
    writer = f"def f(i):\n    return {marker!r} + str(i)\n"
    # Every live container the candidate can reach through the garbage collector, searched for the marker.
    reader = ("import gc\n"
              "def f():\n"
              f"    needle = {marker[:12][::-1]!r}[::-1]  # built at run time: the reader's own constants hold no hit\n"
              "    hits = 0\n"
              "    for o in gc.get_objects():\n"
              "        items = o.values() if type(o) is dict else o if type(o) in (list, tuple) else ()\n"
              "        for x in items:\n"
              "            if type(x) in (str, bytes) and needle in str(x):\n"
              "                hits += 1\n"
              "    return hits\n")
    with SandboxPool(CFG.model_copy(update={"workers": 1})) as solo:
        assert solo.run(Job(writer, "f", ((1,), (2,)), (LIMIT, LIMIT), 256 << 20)).values[0].startswith(marker)
        assert solo.run(Job(reader, "f", ((),), (LIMIT,), 256 << 20)).values == [0]


def test_hard_coded_public_tests_fail_the_hidden_ones(pool):
    task = secret_task()
    public = {tc.args[0]: tc.expected for tc in task.test_cases}
    code = f"def solve(n):\n    return {public!r}.get(n, 'SECRET-0')\n"
    result = pool.score(task, code)
    assert result.public_score == 1.0 and result.hidden_score == 0.0 and result.status is ExecStatus.FAILED


def test_patched_clocks_do_not_change_the_recorded_cpu_time(pool):
    code = (
        "import time, resource\n"
        "time.time = time.perf_counter = time.monotonic = time.process_time = lambda: 0.0\n"
        "resource.getrusage = lambda *a: None\n"
        "def solve(n):\n    x = 0\n    for i in range(3_000_000):\n        x += i\n    return x\n"
    )
    from spade.sandbox import Job

    raw = pool.run(Job(code, "solve", ((1,),), (5.0,), 256 << 20))
    assert raw.outcomes[0].kind.value == "value"
    assert raw.cpu_time_s > 0.05 and raw.wall_time_s > 0.05


def test_candidate_cannot_see_host_environment_variables(pool, monkeypatch):
    from spade.sandbox import Job

    code = "import os\ndef f():\n    return sorted(os.environ)\n"
    raw = pool.run(Job(code, "f", ((),), (LIMIT,), 256 << 20))
    assert set(raw.values[0]) <= {"PATH", "HOME", "TMPDIR", "LANG", "PWD"}
    assert os.environ.get("HOME") is not None  # the host has a richer environment


def test_no_reach_into_another_process_of_the_same_uid(pool):
    """Signals, scheduling, priorities, limits and signal-driven I/O aimed at another pid are refused by the
    filter (EPERM), not left to the kernel's uid check: a spare child waiting for the next job runs as the same
    uid as the candidate. The target pid does not exist, so without the filter the kernel would answer ESRCH (or
    accept F_SETOWN); EPERM can only come from the filter."""
    from spade.sandbox import Job

    code = (
        "import ctypes, os\n"
        "def f():\n"
        "    libc = ctypes.CDLL(None, use_errno=True)\n"
        "    far = 4_000_000\n"
        "    info = ctypes.create_string_buffer(128)\n"
        "    info[0:12] = (10).to_bytes(4, 'little') + (0).to_bytes(4, 'little') + (-1).to_bytes(4, 'little', signed=True)\n"
        "    mask = ctypes.create_string_buffer(128)\n"
        "    mask[0] = 1\n"
        "    param = ctypes.create_string_buffer(8)\n"
        "    old = ctypes.create_string_buffer(16)\n"
        "    r, w = os.pipe()\n"
        "    calls = {\n"
        "        'rt_sigqueueinfo': (129, far, 10, info),\n"
        "        'rt_tgsigqueueinfo': (297, far, far, 10, info),\n"
        "        'sched_setaffinity': (203, far, 128, mask),\n"
        "        'sched_setparam': (142, far, param),\n"
        "        'sched_setscheduler': (144, far, 0, param),\n"
        "        'prlimit64': (302, far, 7, None, old),\n"
        "        'setpriority': (141, 0, far, 0),\n"
        "        'fcntl_setown': (72, r, 8, far),\n"
        "    }\n"
        "    out = {}\n"
        "    for name, args in calls.items():\n"
        "        ctypes.set_errno(0)\n"
        "        rc = libc.syscall(*args)\n"
        "        out[name] = ctypes.get_errno() if rc != 0 else 0\n"
        "    ctypes.set_errno(0)\n"
        "    out['own_limit'] = libc.syscall(302, 0, 7, None, old)\n"
        "    return out\n"
    )
    raw = pool.run(Job(code, "f", ((),), (LIMIT,), 256 << 20))
    errnos = raw.values[0]
    assert errnos.pop("own_limit") == 0  # the caller's own limits stay readable
    assert errnos == {name: 1 for name in errnos}, errnos  # EPERM for every one
    ok = pool.run(Job("def f():\n    return 7\n", "f", ((),), (LIMIT,), 256 << 20))
    assert ok.values == [7]
