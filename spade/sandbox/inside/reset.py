"""What a job leaves behind, removed: processes of the slot uid, and everything under the private /tmp.

in: the slot uid; the tmp directory, a deadline and an entry budget. out: the tree gone, and whether it is.
Runs inside the sandbox in the job's watcher (root, before it replies); it imports only os, signal and time, so the
host's tests can call it too.
"""

from __future__ import annotations

import os
import signal
import time

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
TMPFS_ENTRY_SIZE = 20
"""What each entry of a tmpfs directory, '.' and '..' included, adds to the directory's st_size (the kernel's
BOGO_DIRENT_SIZE): an empty tmpfs directory has size 40, and every link, unlink, mknod and rename keeps it exact."""


def tmpfs_empty(top: str) -> bool:
    """True when `top`, a tmpfs directory on a kernel that passed `tmpfs_sizes_count_entries`, holds no entry:
    one stat instead of a listing. False means "maybe not": `empty` then has the last word."""
    st = os.stat(top, follow_symlinks=False)
    return st.st_size == 2 * TMPFS_ENTRY_SIZE and st.st_nlink == 2


def tmpfs_sizes_count_entries(top: str) -> bool:
    """Whether this kernel's tmpfs sizes `top` (empty, just mounted) by its entries, checked by making one file
    and one directory and removing them: only then may `tmpfs_empty` stand in for a listing."""
    probe, sub = f"{top}/.spade-probe", f"{top}/.spade-probe-dir"
    try:
        empty_before = tmpfs_empty(top)
        os.close(os.open(probe, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_CLOEXEC, 0o600))
        os.mkdir(sub, 0o700)
        counted = os.stat(top).st_size == 4 * TMPFS_ENTRY_SIZE and os.stat(top).st_nlink == 3
        os.rmdir(sub)
        os.unlink(probe)
        return empty_before and counted and tmpfs_empty(top)
    except OSError:
        return False


def empty(top: str, deadline: float, budget: int) -> bool:
    """Remove everything under `top` through directory fds, never following a symlink and never building a path,
    so no tree is too deep for it (PATH_MAX does not apply) and one fd is open at a time (RLIMIT_NOFILE is small).
    Goes down into the first subdirectory it meets and back up through "..": nothing else runs under the slot
    uid by now, so no one can move the tree meanwhile. Stops at the deadline or after `budget` entries.
    True when `top` is empty at the end."""
    try:
        fd = os.open(top, _DIR_FLAGS)
    except OSError:
        return False
    names: list[str] = []  # the path from top down to fd, one name per level
    try:
        while budget > 0 and time.monotonic() < deadline:
            down, seen = None, 0
            with os.scandir(fd) as entries:
                for entry in entries:
                    seen += 1
                    budget -= 1
                    if entry.is_dir(follow_symlinks=False):
                        down = entry.name
                        break
                    os.unlink(entry.name, dir_fd=fd)
                    if budget <= 0:
                        break
            if down is not None:
                sub = os.open(down, _DIR_FLAGS, dir_fd=fd)
                os.close(fd)
                fd = sub
                names.append(down)
            elif seen:
                continue  # unlinking while listing may skip entries: list again until nothing is left
            elif not names:
                return True
            else:
                up = os.open("..", _DIR_FLAGS, dir_fd=fd)
                os.close(fd)
                fd = up
                os.rmdir(names.pop(), dir_fd=fd)
        return False
    except OSError:
        return False
    finally:
        os.close(fd)


def kill_uid(uid: int, keep: set[int | None] | frozenset[int] = frozenset()) -> None:
    """Processes of the slot uid that outlived the run (none should: fork is denied) are killed; not those in
    `keep` (the next child, hardened and waiting for its job; the sandbox's own root processes, not even looked
    at)."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in keep:
            continue
        try:
            if os.stat(f"/proc/{entry}").st_uid == uid:
                os.kill(int(entry), signal.SIGKILL)
        except (OSError, ValueError):
            pass
