"""The fork server: a warm Python that forks one hardened child per candidate.

in: argv[1] = JSON settings (slot uid, layers, tmp dir); then length-prefixed JSON jobs on stdin.
out: one length-prefixed JSON result per job on stdout (see watch.JobRun.execute).
Between jobs it kills every process left under the slot uid and empties the private /tmp, then forks the next
child ahead of its job. Runs inside bubblewrap (or bare under isolation 'none'); imports only a small part of the
standard library (every module it holds is memory each fork shares copy-on-write), and pyseccomp only in a
throwaway child.
"""

from __future__ import annotations

import gc
import os
import signal
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE]

import codec  # noqa: E402  (path set just above; this file runs as a script)
import watch  # noqa: E402

from guard import Guard  # noqa: E402


def main() -> None:
    settings = codec.plain_loads(sys.argv[1])
    if settings.get("ext"):
        sys.path.append(settings["ext"])
    guard = Guard(settings)
    guard.confine_zygote()
    # The control pipes move to private fds so a child can never inherit them as 0/1.
    cin, cout = os.dup(0), os.dup(1)
    null = os.open("/dev/null", os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    # SIGPIPE stays ignored (Python's default): a child that died before taking its job must not kill us.
    gc.freeze()  # the zygote's objects stay out of children's collections: fewer copy-on-write faults per fork
    _send(cout, {"ready": True, "pid": os.getpid()})
    spare = watch.Child(guard)
    while (job := _receive(cin)) is not None:
        try:
            result = watch.JobRun(job, guard, spare).execute()
        except watch.HardeningFailed as exc:
            result = {"fatal": str(exc)}
        finally:
            _cleanup(settings)  # before the next child exists: it kills every process of the slot uid
        _send(cout, result)
        job = result = None  # nothing of this job stays reachable in the next child's memory
        spare = watch.Child(guard)  # forked now, it hardens while the host grades and sends the next job


def _cleanup(settings: dict) -> None:
    if settings["drop_uid"]:
        _kill_uid(settings["uid"])
    _empty(settings["tmp"])


def _empty(top: str) -> None:
    """Remove everything under `top`, never following a symlink; iterative, so no tree is too deep for it."""
    pending, dirs = [top], []
    while pending:
        path = pending.pop()
        try:
            entries = list(os.scandir(path))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    pending.append(entry.path)
                    dirs.append(entry.path)
                else:
                    os.unlink(entry.path)
            except OSError:
                pass
    for path in reversed(dirs):  # children were found after their parents
        try:
            os.rmdir(path)
        except OSError:
            pass


def _kill_uid(uid: int) -> None:
    """Processes of the slot uid that outlived the run (none should: fork is denied) are killed."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.stat(f"/proc/{entry}").st_uid == uid:
                os.kill(int(entry), signal.SIGKILL)
        except (OSError, ValueError):
            pass


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
