"""The fork server: a clean template that forks every candidate's child, and one watcher that runs the jobs.

in: argv[1] = JSON settings (slot uid, layers, tmp dir); then length-prefixed JSON jobs on stdin.
out: one length-prefixed JSON result per job on stdout (see watch.JobRun.execute), written by the watcher.
The template forks the watcher once, closes the control pipes and from then on only forks hardened children ahead
of their jobs and reaps them (wait4) when the watcher asks, so no child is a copy of a process that ever held a
job's code, inputs or values. The watcher reads each job, hands it to a child, enforces deadlines, kills what the slot uid left, empties
the private /tmp and replies; it holds job data, so it never forks. Runs inside bubblewrap (or bare under isolation
'none'); imports only a small part of the standard library (every module it holds is memory each fork shares
copy-on-write), and pyseccomp only in a throwaway child.
"""

from __future__ import annotations

import gc
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE]

import codec  # noqa: E402  (path set just above; this file runs as a script)
import program_watch  # noqa: E402
import reset  # noqa: E402
import watch  # noqa: E402
from guard import Guard  # noqa: E402

CLEANUP_S = 2.0
CLEANUP_ENTRIES = 2_000_000
"""Bounds on emptying /tmp after a job; past either (or with /tmp still not empty) the reply asks for a recycle."""


def main() -> None:
    os.environ.pop("PYTHONHASHSEED", None)  # read at start-up (the host's fixed seed); candidates need not see it
    settings = codec.plain_loads(sys.argv[1])
    codec.configure(settings["max_depth"])  # the host's one depth rule (spade.untrusted.MAX_VALUE_DEPTH)
    if settings.get("ext"):
        sys.path.append(settings["ext"])
    guard = Guard(settings)
    if settings.get("mount_tmp"):
        guard.mount_tmp(settings["tmp"], settings["mount_tmp"]["size"], settings["mount_tmp"]["inodes"])
        # Our own tmpfs: an empty /tmp is seen in one stat, once this kernel is seen to count entries in its size.
        settings["tmpfs_sized"] = reset.tmpfs_sizes_count_entries(settings["tmp"])
    guard.confine_zygote()
    # The control pipes move to private fds so a child can never inherit them as 0/1.
    cin, cout = os.dup(0), os.dup(1)
    null = os.open("/dev/null", os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    # SIGPIPE stays ignored (Python's default): a child that died before taking its job must not kill us.
    gc.freeze()  # the template's objects stay out of children's collections: fewer copy-on-write faults per fork
    _send(cout, {"ready": True, "pid": os.getpid()})
    from_template, to_watcher = os.pipe()
    from_watcher, to_template = os.pipe()
    template = os.fork()
    if template == 0:
        # From here on the template holds no control pipe: it could not read a job or a result if it tried.
        for fd in (cin, cout, from_template, to_template):
            os.close(fd)
        code = 1
        try:
            _fork_children(guard, to_watcher, from_watcher)
            code = 0
        except BaseException:
            import traceback

            traceback.print_exc()  # fd 2 is the worker's log
        finally:
            os._exit(code)
    os.close(to_watcher)
    os.close(from_watcher)
    _serve(cin, cout, watch.Children(from_template, to_template, template), settings)


def _fork_children(guard: Guard, to_watcher: int, from_watcher: int) -> None:
    """The template's whole work, one request a byte from the watcher (see watch.Children): `n` forks a hardened
    child and announces it, `r` and a pid reaps that child and answers with its wait status, CPU seconds and peak
    RSS. The template's copies of the last child's pipes are closed at the next request (the watcher has its own
    by then). Returns when the watcher is gone."""
    try:
        _serve_requests(guard, to_watcher, from_watcher)
    except BrokenPipeError:  # the watcher is gone
        pass


def _serve_requests(guard: Guard, to_watcher: int, from_watcher: int) -> None:
    held: list[int] = []
    while request := os.read(from_watcher, 1):
        for fd in held:
            os.close(fd)
        held = []
        if request == b"n":
            pid, *held = watch.fork_child(guard)
            _write_all(to_watcher, " ".join(map(str, (pid, *held))).encode())
        elif request == b"r":
            pid = int.from_bytes(watch.read_exact(from_watcher, 4) or b"", "big")
            _, status, usage = os.wait4(pid, 0)
            _write_all(to_watcher, f"{status} {usage.ru_utime + usage.ru_stime!r} {usage.ru_maxrss}".encode())
        else:
            return


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _serve(cin: int, cout: int, children: watch.Children, settings: dict) -> None:
    """The watcher: every job from the control pipe to its reply. It holds job data, so it never forks."""
    children.ask()
    spare = None  # taken once a job is there: the template forks and the child hardens while the host is busy
    while (job := _receive(cin)) is not None:
        if job.get("program"):
            run = program_watch.ProgramRun(job, children, spare, settings["tmp"])
        else:
            run = watch.JobRun(job, children, spare)
        try:
            result = run.execute()
        except (watch.HardeningFailed, codec.Unencodable) as exc:  # not the candidate's doing
            result = {"fatal": str(exc)}
        spare = run.spare  # left unused by a job without tests
        if spare is None and children.asked:
            spare = children.take()  # the same: the child asked for ahead is kept, and spared by the cleanup
        if not _cleanup(settings, children.template, spare.pid if spare else None):
            result["recycle"] = True  # /tmp could not be emptied in bounds: the host replaces this worker
        if spare is None:
            children.ask()  # after the cleanup, which kills every other process of the slot uid
        _send(cout, result)
        job = result = None
    if spare is not None:
        children.finish(spare)


def _cleanup(settings: dict, template: int, spare: int | None) -> bool:
    """Kill what the slot uid left (but the spare child) and empty /tmp; True when /tmp is empty afterwards."""
    if settings["drop_uid"]:
        # bwrap's init (pid 1), this watcher and the template run as root: never the slot uid, never looked at.
        reset.kill_uid(settings["uid"], {1, os.getpid(), template, spare})
    if settings.get("tmpfs_sized") and reset.tmpfs_empty(settings["tmp"]):
        return True
    budget = settings.get("cleanup_entries", CLEANUP_ENTRIES)
    return reset.empty(settings["tmp"], time.monotonic() + CLEANUP_S, budget)


def _send(fd: int, message: dict) -> None:
    data = codec.plain_dumps(message).encode()
    try:
        _write_all(fd, len(data).to_bytes(4, "big") + data)
    except BrokenPipeError:  # the host went away: leave quietly
        os._exit(0)


def _receive(fd: int) -> dict | None:
    head = watch.read_exact(fd, 4)
    if head is None:
        return None
    body = watch.read_exact(fd, int.from_bytes(head, "big"))
    return None if body is None else codec.plain_loads(body.decode())


if __name__ == "__main__":
    main()
