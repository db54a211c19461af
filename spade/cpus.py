"""The CPUs this process may use: its affinity mask and its cgroup's CPU limit.

A container's CPU quota (cgroup v2 `cpu.max`, v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us`) is invisible to
`os.cpu_count()`, to the affinity mask and to torch's default thread count: a process limited to 1 CPU on a
64-CPU host sees 64. More threads than the quota allows are throttled together at the end of each period; the
embedded sampler on 2 threads under a 1-CPU quota ran at 0.70-0.78x its speed on 1 thread (docs/benchmarks.md,
"Threads under a CPU quota"). The limit in force is the tightest one from this process's own cgroup up to the root
of the hierarchy it can see. In: /proc/self/cgroup, /proc/self/mountinfo and the cgroup files (read under `root`,
so tests can give a tree of their own). Out: a `CpuLimit`, or None where there is no limit or nothing can be read.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from pathlib import Path

_MOST_BYTES = 1 << 20  # mountinfo of a host with thousands of mounts stays well under this
_OCTAL = re.compile(r"\\([0-7]{3})")


@dataclass(frozen=True, slots=True)
class CpuLimit:
    """cores: quota / period of the tightest level; where: that cgroup's directory; usage: the file holding the
    CPU time its processes have used so far (None where the hierarchy keeps none), in units of `usage_unit_s`."""

    cores: float
    where: Path
    usage: Path | None = None
    usage_unit_s: float = 1e-9


def usable_cpus() -> list[int]:
    """The CPUs this process may run on (its affinity mask), or all of them where the platform has no mask."""
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return list(range(os.cpu_count() or 1))


def nearest_core(cores: float) -> int:
    """`cores` rounded to the nearest whole core, halves up (2.5 is 3; Python's round would give 2, and 1.5 2)."""
    return math.floor(cores + 0.5)


def usable_cores(cpus: list[int] | None = None, limit: CpuLimit | None = None, *, read: bool = True) -> int:
    """Whole cores this process may keep busy: its usable CPUs, and under a cgroup limit no more than the limit
    rounded to the nearest core (at least 1). `read`: look the limit up when none is given."""
    count = len(usable_cpus() if cpus is None else cpus)
    if limit is None and read:
        limit = cpu_limit()
    if limit is not None:
        count = min(count, nearest_core(limit.cores))
    return max(1, count)


def _read(path: Path) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read(_MOST_BYTES)
    except OSError:
        return None


def _mounts(mountinfo: str) -> list[tuple[str, Path, str, set[str]]]:
    """(root within the hierarchy, mount point, filesystem type, super options) of each cgroup mount."""
    out = []
    for line in mountinfo.splitlines():
        left, sep, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if not sep or len(fields) < 5 or not tail or tail[0] not in ("cgroup", "cgroup2"):
            continue
        unescape = lambda s: _OCTAL.sub(lambda m: chr(int(m.group(1), 8)), s)  # noqa: E731  ("\040" is a space)
        options = set(tail[2].split(",")) if len(tail) > 2 else set()
        out.append((unescape(fields[3]), Path(unescape(fields[4])), tail[0], options))
    return out


def _groups(text: str) -> dict[str, str]:
    """Controller -> this process's cgroup path, from /proc/self/cgroup ('' for the v2 hierarchy)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        if parts[0] == "0" and parts[1] == "":
            out[""] = parts[2]
        for name in parts[1].split(","):
            if name:
                out[name] = parts[2]
    return out


def _own_dir(point: Path, mount_root: str, path: str) -> Path:
    """The directory of cgroup `path` under a mount of the hierarchy's `mount_root` at `point` (inside a cgroup
    namespace or a container, the mount's root is the process's own group and `path` may lie outside it)."""
    rel = path if mount_root == "/" else path[len(mount_root):] if path.startswith(mount_root) else ""
    parts = [part for part in rel.split("/") if part]
    return point if any(part in (".", "..") for part in parts) else point.joinpath(*parts)


def _number(text: str | None) -> int | None:
    if text is None:
        return None
    text = text.strip()
    return int(text) if re.fullmatch(r"-?\d{1,19}", text) else None


def _v2_limit(d: Path) -> float | None:
    text = _read(d / "cpu.max")
    parts = text.split() if text else []
    if len(parts) != 2 or parts[0] == "max":
        return None
    quota, period = _number(parts[0]), _number(parts[1])
    return quota / period if quota is not None and period and quota > 0 and period > 0 else None


def _v1_limit(d: Path) -> float | None:
    quota, period = _number(_read(d / "cpu.cfs_quota_us")), _number(_read(d / "cpu.cfs_period_us"))
    return quota / period if quota is not None and period and quota > 0 and period > 0 else None


def _tightest(start: Path, top: Path, v2: bool) -> tuple[float, Path] | None:
    """The smallest limit on the way from `start` up to `top` (both included), with the directory that sets it."""
    best: tuple[float, Path] | None = None
    d = start
    while True:
        cores = _v2_limit(d) if v2 else _v1_limit(d)
        if cores is not None and (best is None or cores < best[0]):
            best = (cores, d)
        if d == top or d.parent == d or top not in d.parents:
            return best
        d = d.parent


def cpu_limit(root: Path = Path("/")) -> CpuLimit | None:
    """The CPU limit of this process's cgroup (the tightest level from its own group up), or None."""
    cgroup, mountinfo = _read(root / "proc/self/cgroup"), _read(root / "proc/self/mountinfo")
    if cgroup is None or mountinfo is None:
        return None
    groups, mounts = _groups(cgroup), _mounts(mountinfo)
    under = lambda point: root / point.relative_to("/") if point.is_absolute() else root / point  # noqa: E731
    found: list[CpuLimit] = []
    for mount_root, point, fstype, options in mounts:
        v2 = fstype == "cgroup2"
        key = "" if v2 else "cpu"
        if key not in groups or (not v2 and "cpu" not in options):
            continue
        top = under(point)
        start = _own_dir(top, mount_root, groups[key])
        hit = _tightest(start, top, v2)
        if hit is None:
            continue
        cores, where = hit
        if v2:
            found.append(CpuLimit(cores, where, where / "cpu.stat", 1e-6))
            continue
        # cpu and cpuacct mounted together, else the same group in the cpuacct hierarchy
        homes = [where] + [under(p) / where.relative_to(top) for _, p, t, o in mounts
                           if t == "cgroup" and "cpuacct" in o]
        usage = next((h / "cpuacct.usage" for h in homes if (h / "cpuacct.usage").exists()), None)
        found.append(CpuLimit(cores, where, usage, 1e-9))
    return min(found, key=lambda x: x.cores, default=None)


def cgroup_seconds(limit: CpuLimit) -> float | None:
    """CPU seconds the processes of `limit`'s cgroup have used so far, or None where it cannot be read."""
    if limit.usage is None:
        return None
    text = _read(limit.usage)
    if text is None:
        return None
    if limit.usage.name == "cpu.stat":  # v2: 'usage_usec N' among other lines
        match = re.search(r"^usage_usec (\d{1,19})$", text, re.MULTILINE)
        value = int(match.group(1)) if match else None
    else:
        value = _number(text)
    return None if value is None else value * limit.usage_unit_s
