"""Residue across jobs and memory outside the limits (docs/method.md#threat-model): what one candidate leaves or
holds must not reach the next candidate on the same worker, nor escape the memory limit.

Each test runs on a pool of one worker, so the next job is sure to land where the previous one ran.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time

import pytest

from spade.sandbox import Job, OutcomeKind, SandboxPool
from spade.sandbox.inside import reset
from spade.sandbox.layers import TMP_INODES, Plan
from spade.sandbox.worker import Worker
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


# -- the /tmp reset ------------------------------------------------------------------------------------------------
DEEP_TREE = ('import os\n'
             'def f():\n'
             '    os.chdir("/tmp")\n'
             '    for _ in range(40):  # 40 levels of 200-character names: a path of 8,000 characters\n'
             '        os.mkdir("d" * 200)\n'
             '        os.chdir("d" * 200)\n'
             '        open("note", "w").write("left for the next candidate")\n'
             '    return len(os.getcwd())\n')
LIST_TMP = 'import os\ndef f():\n    return sorted(os.listdir("/tmp"))\n'


def test_a_tree_deeper_than_path_max_is_removed_before_the_next_candidate(solo):
    assert _run(solo, DEEP_TREE).values[0] > 4096
    assert _run(solo, LIST_TMP).values == [[]]
    assert solo.score(secret_task(), CORRECT).score == 1.0


def test_a_file_flood_in_tmp_stops_at_the_inode_cap_and_is_gone_for_the_next_candidate(solo):
    flood = ('import os\n'
             'def f():\n'
             '    made = 0\n'
             '    try:\n'
             '        for i in range(1_000_000):\n'
             '            os.close(os.open(f"/tmp/{i}", os.O_CREAT | os.O_WRONLY))\n'
             '            made += 1\n'
             '    except OSError as exc:\n'
             '        return [made, exc.errno]\n'
             '    return [made, 0]\n')
    made, errno = _run(solo, flood).values[0]
    assert made < TMP_INODES and errno == 28, (made, errno)  # ENOSPC: out of inodes, long before a million
    assert _run(solo, LIST_TMP).values == [[]]
    assert solo.score(secret_task(), CORRECT).score == 1.0


def test_the_reset_removes_deep_trees_through_fds_and_never_follows_a_symlink(tmp_path):
    top, outside = tmp_path / "top", tmp_path / "outside"
    outside.mkdir()
    (outside / "keep").write_text("host file")
    top.mkdir()
    fd = os.open(top, os.O_RDONLY)
    for _ in range(30):  # 30 × 200 characters: deeper than PATH_MAX, unreachable by path
        os.mkdir("d" * 200, dir_fd=fd)
        sub = os.open("d" * 200, os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = sub
        os.symlink(str(outside), "link", dir_fd=fd)
        os.close(os.open("f", os.O_CREAT | os.O_WRONLY, dir_fd=fd))
    os.close(fd)
    assert reset.empty(str(top), time.monotonic() + 10, 10_000)
    assert os.listdir(top) == [] and (outside / "keep").read_text() == "host file"


def test_the_reset_stops_at_its_budget_and_says_the_tree_is_not_empty(tmp_path):
    for i in range(50):
        (tmp_path / str(i)).write_text("x")
    assert not reset.empty(str(tmp_path), time.monotonic() + 10, 20)
    assert 0 < len(os.listdir(tmp_path)) <= 30
    assert not reset.empty(str(tmp_path), time.monotonic() - 1, 10_000)  # past its deadline: does nothing
    assert reset.empty(str(tmp_path), time.monotonic() + 10, 10_000) and os.listdir(tmp_path) == []


def test_an_empty_tmpfs_directory_is_seen_in_one_stat_and_every_kind_of_entry_makes_it_not_empty():
    # The watcher's one-stat check (a tmpfs directory's size counts its entries) stands in for a listing only
    # where it is this exact; /dev/shm is a tmpfs like the sandbox's /tmp.
    if not os.path.isdir("/dev/shm"):
        pytest.skip("no /dev/shm here")
    top = tempfile.mkdtemp(dir="/dev/shm")
    try:
        if not reset.tmpfs_sizes_count_entries(top):
            pytest.skip("/dev/shm is not a tmpfs here")
        assert reset.tmpfs_empty(top)
        makers = {
            "file": lambda p: open(p, "w").close(),
            "dotfile": lambda p: open(os.path.join(os.path.dirname(p), ".hidden"), "w").close(),
            "directory": os.mkdir,
            "symlink": lambda p: os.symlink("/etc/passwd", p),
            "fifo": os.mkfifo,
            "hard link": lambda p: (open(p + "-a", "w").close(), os.link(p + "-a", p), os.unlink(p + "-a")),
        }
        for kind, make in makers.items():
            make(os.path.join(top, "x"))
            assert not reset.tmpfs_empty(top), kind
            assert reset.empty(top, time.monotonic() + 10, 100) and reset.tmpfs_empty(top), kind
        os.mkdir(os.path.join(top, "d"))
        open(os.path.join(top, "d", "f"), "w").close()
        os.rename(os.path.join(top, "d", "f"), os.path.join(top, "f"))  # moved out of a subdirectory
        os.rmdir(os.path.join(top, "d"))
        assert not reset.tmpfs_empty(top)
    finally:
        shutil.rmtree(top, ignore_errors=True)


def test_the_one_stat_check_is_off_where_directory_sizes_do_not_count_entries(tmp_path):
    if os.stat(tmp_path).st_size == 2 * reset.TMPFS_ENTRY_SIZE:
        pytest.skip("tmp_path is on a tmpfs here")
    assert not reset.tmpfs_sizes_count_entries(str(tmp_path))
    assert os.listdir(tmp_path) == []  # the probe left nothing


class _TightCleanup(Plan):
    """The strict plan, with a reset budget of 100 entries, so a candidate can outrun it."""

    def argv(self, uid: int, tmp: str, tmpfs_bytes: int) -> list[str]:
        argv = super().argv(uid, tmp, tmpfs_bytes)
        settings = json.loads(argv[-1])
        return [*argv[:-1], json.dumps(settings | {"cleanup_entries": 100})]


def test_a_worker_that_cannot_empty_its_tmp_asks_to_be_recycled_and_the_verdict_stands(solo):
    many = 'def f():\n    for i in range(500):\n        open(f"/tmp/{i}", "w").close()\n    return "done"\n'
    plan = solo.plan
    worker = Worker(_TightCleanup(plan.layers, plan.uses_bwrap, plan.use_seccomp, plan.drop_uid), 61990, 1 << 24)
    try:
        worker.wait_ready()
        fine = worker.run(Job("def f():\n    return 1\n", "f", ((),), (5.0,), CFG.memory_bytes))
        assert "recycle" not in fine  # a job that leaves nothing does not ask
        reply = worker.run(Job(many, "f", ((),), (5.0,), CFG.memory_bytes, total_timeout=10.0))
        assert reply.get("recycle") is True and reply["tests"][0] == {"kind": "value", "value": '"done"'}
    finally:
        worker.close()


def test_no_process_in_the_sandbox_keeps_cap_sys_admin_once_tmp_is_mounted(solo):
    # bubblewrap hands the zygote CAP_SYS_ADMIN for its capped /tmp mount; it is dropped before any fork.
    code = ('import os\n'
            'def f():\n'
            '    held = []\n'
            '    for pid in [p for p in os.listdir("/proc") if p.isdigit()]:\n'
            '        status = open(f"/proc/{pid}/status").read().splitlines()\n'
            '        caps = {l.split(":")[0]: int(l.split()[1], 16) for l in status if l.startswith("Cap")}\n'
            '        if any(caps[k] >> 21 & 1 for k in ("CapEff", "CapPrm", "CapAmb", "CapInh")):\n'
            '            held.append(pid)\n'
            '    return [held, os.statvfs("/tmp").f_files]\n')
    assert _run(solo, code).values == [[[], TMP_INODES]]
    mount = 'import ctypes\ndef f():\n    return ctypes.CDLL(None).mount(b"tmpfs", b"/tmp", b"tmpfs", 0, None)\n'
    assert _run(solo, mount).outcomes[0].kind is OutcomeKind.KILLED  # the filter kills on mount
    assert solo.score(secret_task(), CORRECT).score == 1.0


def test_the_process_that_forks_candidates_holds_no_control_pipe(solo):
    # The template forks every child: it must have no way to read a job or a result. The watcher reads them
    # (and, holding job data, never forks: the memory scan above is the behavioural check of that).
    assert solo.score(secret_task(), CORRECT).score == 1.0
    (worker,) = solo._all.values()
    control = {os.fstat(f.fileno()).st_ino for f in (worker.proc.stdin, worker.proc.stdout)}
    pythons = [pid for pid in _tree(worker.pid) if _name(pid).startswith("python") and _uid(pid) == 0]
    watcher = next(pid for pid in pythons if _parent(pid) not in pythons)
    # Its oldest child: the spare candidate's process is its child too (reparented), maybe still root while it hardens.
    template = min((pid for pid in pythons if _parent(pid) == watcher), key=_started)
    assert control <= _pipes(watcher) and not control & _pipes(template)
    assert solo.score(secret_task(), CORRECT).score == 1.0


def _tree(root: int) -> list[int]:
    parents = {int(p): _parent(int(p)) for p in os.listdir("/proc") if p.isdigit() and _alive(int(p))}
    found, stack = [], [root]
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack += [child for child, parent in parents.items() if parent == pid]
    return found


def _alive(pid: int) -> bool:
    try:
        _parent(pid)
        return True
    except OSError:
        return False


def _parent(pid: int) -> int:
    return int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])


def _started(pid: int) -> int:
    return int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[19])


def _name(pid: int) -> str:
    return open(f"/proc/{pid}/comm").read().strip()


def _uid(pid: int) -> int:
    return os.stat(f"/proc/{pid}").st_uid


def _pipes(pid: int) -> set[int]:
    links = (os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd"))
    return {int(link[6:-1]) for link in links if link.startswith("pipe:[")}
