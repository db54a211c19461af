"""The fork server: a clean template that forks one watcher per job; the watcher forks the hardened child.

in: argv[1] = JSON settings (slot uid, layers, tmp dir); then length-prefixed JSON jobs on stdin.
out: one length-prefixed JSON result per job on stdout (see watch.JobRun.execute), written by that job's watcher.
The template itself never reads a job or a result: it forks a watcher, waits for it to exit and forks the next,
so every watcher and every candidate starts from the same memory, which never held another job's code, inputs or
values. A watcher forks its child ahead of its job (the fork and hardening overlap the host's grading), reads one
job, watches the child, kills what the slot uid left, empties the private /tmp, replies and exits. Runs inside
bubblewrap (or bare under isolation 'none'); imports only a small part of the standard library (every module it
holds is memory each fork shares copy-on-write), and pyseccomp only in a throwaway child.
"""

from __future__ import annotations

import gc
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE]

import codec  # noqa: E402  (path set just above; this file runs as a script)
import reset  # noqa: E402
import watch  # noqa: E402

from guard import Guard  # noqa: E402

REPLIED, HOST_GONE = 0, 3
"""How a watcher exits: it answered its job, or the host closed the control pipe. Anything else ends the worker."""
CLEANUP_S = 2.0
CLEANUP_ENTRIES = 2_000_000
"""Bounds on emptying /tmp after a job; past either (or with /tmp still not empty) the reply asks for a recycle."""


def main() -> None:
    settings = codec.plain_loads(sys.argv[1])
    if settings.get("ext"):
        sys.path.append(settings["ext"])
    guard = Guard(settings)
    if settings.get("mount_tmp"):
        guard.mount_tmp(settings["tmp"], settings["mount_tmp"]["size"], settings["mount_tmp"]["inodes"])
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
    while True:
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                code = _serve_one(cin, cout, guard, settings)
            except BaseException:
                import traceback

                traceback.print_exc()  # fd 2 is the worker's log
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        if status != 0:  # the host went away (or a watcher failed): the worker ends, and the host replaces it
            sys.exit(0 if os.WIFEXITED(status) and os.WEXITSTATUS(status) == HOST_GONE else 1)


def _serve_one(cin: int, cout: int, guard: Guard, settings: dict) -> int:
    """The watcher: one job from the control pipe to the reply; its memory goes with it when it exits."""
    spare = watch.Child(guard)  # forked before the job is read: the candidate's process never holds job data
    job = _receive(cin)
    if job is None:
        spare.end()
        return HOST_GONE
    try:
        result = watch.JobRun(job, guard, spare).execute()
    except watch.HardeningFailed as exc:
        result = {"fatal": str(exc)}
    if not _cleanup(settings):
        result["recycle"] = True  # /tmp could not be emptied in bounds: the host replaces this worker
    _send(cout, result)
    return REPLIED


def _cleanup(settings: dict) -> bool:
    """Kill what the slot uid left and empty /tmp; True when /tmp is empty afterwards."""
    if settings["drop_uid"]:
        reset.kill_uid(settings["uid"])
    budget = settings.get("cleanup_entries", CLEANUP_ENTRIES)
    return reset.empty(settings["tmp"], time.monotonic() + CLEANUP_S, budget)


def _send(fd: int, message: dict) -> None:
    data = codec.plain_dumps(message).encode()
    view = memoryview(len(data).to_bytes(4, "big") + data)
    try:
        while view:
            view = view[os.write(fd, view):]
    except BrokenPipeError:  # the host went away: leave quietly
        os._exit(0)


def _receive(fd: int) -> dict | None:
    head = _read_exact(fd, 4)
    if head is None:
        return None
    body = _read_exact(fd, int.from_bytes(head, "big"))
    return None if body is None else codec.plain_loads(body.decode())


def _read_exact(fd: int, n: int) -> bytes | None:
    parts, left = [], n
    while left:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            return None
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


if __name__ == "__main__":
    main()
