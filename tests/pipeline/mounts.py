"""Read-only and nearly full file systems for tests, made in a private mount namespace so nothing leaks.

`in_mount_namespace(script)` runs a shell script under `unshare --mount` (root only): the script mounts what it
needs (a small tmpfs, a read-only bind mount of a test directory) and the mounts vanish when it exits. Root
ignores file mode bits, so chmod cannot make a directory read-only for these tests; a read-only mount can.
"""

from __future__ import annotations

import functools
import os
import shlex
import subprocess
import sys

import pytest

from tests.pipeline.conftest import ROOT


@functools.cache
def _can_mount() -> str | None:
    """Why mounts cannot be made here, or None when they can."""
    if os.geteuid() != 0:
        return "needs root to mount a tmpfs or a read-only bind mount in a private mount namespace"
    probe = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c",
                            "mount -t tmpfs -o size=64k tmpfs /mnt && umount /mnt"], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"cannot mount in a private namespace here: {probe.stderr.strip()[:200]}"
    return None


def needs_mounts() -> None:
    reason = _can_mount()
    if reason:
        pytest.skip(reason)


def spade_cmd(*args: object) -> str:
    """The shell words for `python -m spade ARGS`, run from the repository root."""
    return " ".join(shlex.quote(str(a)) for a in (sys.executable, "-m", "spade", *args))


def python_cmd(code: str) -> str:
    return " ".join(shlex.quote(a) for a in (sys.executable, "-c", code))


def in_mount_namespace(script: str, timeout: float = 300) -> subprocess.CompletedProcess:
    needs_mounts()
    return subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
                          capture_output=True, text=True, cwd=ROOT, timeout=timeout,
                          env=dict(os.environ, PYTHONUNBUFFERED="1"))


def ro_bind(src: object, view: object) -> str:
    """Shell lines that show directory `src` read-only at `view` (which must exist)."""
    return f"mount --bind {shlex.quote(str(src))} {shlex.quote(str(view))} && " \
           f"mount -o remount,bind,ro {shlex.quote(str(view))}"


def tmpfs(at: object, size: str) -> str:
    return f"mount -t tmpfs -o size={size} tmpfs {shlex.quote(str(at))}"
