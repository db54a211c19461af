"""The machine a benchmark ran on, for the line every benchmark prints (figures are compared within one CPU)."""

from __future__ import annotations

from pathlib import Path


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo, or 'unknown' where there is none."""
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return "unknown"
    for line in lines:
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown"


def enter_cpu_quota(cores: float, weight_shares: int = 262144) -> Path:
    """Move this process into a new cgroup limited to `cores` CPUs (needs a writable cgroup CPU controller, e.g.
    root); the group gets the highest CPU weight, so the quota, not what else the machine runs, is what binds.
    Returns the group's directory (empty it and rmdir it to remove it); exits with a message where it can't."""
    import os
    import sys
    import uuid

    period = 100_000
    quota = max(1000, round(cores * period))
    v1, v2 = Path("/sys/fs/cgroup/cpu"), Path("/sys/fs/cgroup")
    name = f"spade-bench-{uuid.uuid4().hex[:8]}"
    try:
        if (v1 / "cpu.cfs_quota_us").exists():
            group = v1 / name
            group.mkdir()
            (group / "cpu.cfs_quota_us").write_text(f"{quota}\n")
            (group / "cpu.shares").write_text(f"{weight_shares}\n")
        elif "cpu" in (v2 / "cgroup.subtree_control").read_text().split():
            group = v2 / name
            group.mkdir()
            (group / "cpu.max").write_text(f"{quota} {period}\n")
            (group / "cpu.weight").write_text("10000\n")
        else:
            raise OSError("no cgroup CPU controller found")
        (group / "cgroup.procs").write_text(f"{os.getpid()}\n")
    except OSError as exc:
        sys.exit(f"--quota {cores}: cannot make a cgroup with a CPU limit here ({exc}); run as root on Linux")
    return group


def leave_cpu_quota(pid: int, group: Path) -> None:
    """Move process `pid` (e.g. a load started from inside the group) to the group's parent."""
    (group.parent / "cgroup.procs").write_text(f"{pid}\n")
