"""The CPU limit of this process's cgroup: v1 and v2 trees laid out under a temporary root, and the real kernel
interface where this process may make a cgroup of its own."""

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from spade.cpus import CpuLimit, cgroup_seconds, cpu_limit, usable_cores, usable_cpus

V1_MOUNTS = """25 30 0:22 / /sys/fs/cgroup rw,nosuid - tmpfs tmpfs ro,mode=755
26 25 0:23 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
27 25 0:24 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
28 25 0:25 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
"""


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


V2_MOUNT = "30 25 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"


def _v2(root: Path, group: str, files: dict[str, str]) -> Path:
    """A cgroup v2 tree: this process in `group`, the hierarchy mounted at /sys/fs/cgroup, and `files`."""
    return _tree(root, {"proc/self/cgroup": f"0::{group}\n", "proc/self/mountinfo": V2_MOUNT, **files})


def test_no_cgroup_files_no_limit(tmp_path):
    assert cpu_limit(tmp_path) is None


def test_v2_the_tightest_level_from_the_own_group_up_sets_the_limit(tmp_path):
    root = _v2(tmp_path, "/kube/pod1/app", {
        "sys/fs/cgroup/cpu.max": "max 100000\n",
        "sys/fs/cgroup/kube/cpu.max": "800000 100000\n",
        "sys/fs/cgroup/kube/pod1/cpu.max": "150000 100000\n",
        "sys/fs/cgroup/kube/pod1/cpu.stat": "usage_usec 2500000\nuser_usec 2000000\n",
        "sys/fs/cgroup/kube/pod1/app/cpu.max": "max 100000\n",
    })
    limit = cpu_limit(root)
    assert limit is not None and limit.cores == pytest.approx(1.5)
    assert limit.where == root / "sys/fs/cgroup/kube/pod1"
    assert cgroup_seconds(limit) == pytest.approx(2.5)
    assert usable_cores([0, 1, 2, 3], limit) == 2  # 1.5 cores: two threads beat one (docs/benchmarks.md)
    assert usable_cores([0], limit) == 1
    assert usable_cores([0, 1, 2, 3], CpuLimit(2.5, limit.where, None, 1e-6)) == 3  # halves up, not to even


def test_v2_inside_a_cgroup_namespace_the_mount_root_is_the_own_group(tmp_path):
    root = _v2(tmp_path, "/", {"sys/fs/cgroup/cpu.max": "50000 100000\n"})
    limit = cpu_limit(root)
    assert limit is not None and limit.cores == pytest.approx(0.5)
    assert usable_cores([0, 1, 2, 3], limit) == 1  # never below one


def test_v1_split_hierarchies_read_the_quota_from_cpu_and_the_usage_from_cpuacct(tmp_path):
    root = _tree(tmp_path, {
        "proc/self/cgroup": "4:memory:/job\n3:cpuacct:/job\n2:cpu:/job\n",
        "proc/self/mountinfo": V1_MOUNTS,
        "sys/fs/cgroup/cpu/cpu.cfs_quota_us": "-1\n",
        "sys/fs/cgroup/cpu/cpu.cfs_period_us": "100000\n",
        "sys/fs/cgroup/cpu/job/cpu.cfs_quota_us": "200000\n",
        "sys/fs/cgroup/cpu/job/cpu.cfs_period_us": "100000\n",
        "sys/fs/cgroup/cpuacct/job/cpuacct.usage": "7000000000\n",
    })
    limit = cpu_limit(root)
    assert limit == CpuLimit(2.0, root / "sys/fs/cgroup/cpu/job", root / "sys/fs/cgroup/cpuacct/job/cpuacct.usage")
    assert cgroup_seconds(limit) == pytest.approx(7.0)


def test_v1_co_mounted_cpu_and_cpuacct_and_no_quota_is_no_limit(tmp_path):
    files = {
        "proc/self/cgroup": "3:cpu,cpuacct:/docker/abc\n",
        "proc/self/mountinfo": "26 25 0:23 /docker/abc /sys/fs/cgroup/cpu,cpuacct ro - cgroup cgroup rw,cpu,cpuacct\n",
        "sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us": "-1\n",
        "sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us": "100000\n",
    }
    assert cpu_limit(_tree(tmp_path, files)) is None
    _tree(tmp_path, {"sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us": "25000\n",
                     "sys/fs/cgroup/cpu,cpuacct/cpuacct.usage": "123\n"})
    limit = cpu_limit(tmp_path)
    assert limit is not None and limit.cores == pytest.approx(0.25)
    assert limit.usage == tmp_path / "sys/fs/cgroup/cpu,cpuacct/cpuacct.usage"


@pytest.mark.parametrize("text", ["", "banana", "100000", "-5 100000", "100000 0", "1e9 100000", "9" * 40 + " 1"])
def test_unreadable_or_odd_cpu_max_is_no_limit(tmp_path, text):
    root = _v2(tmp_path, "/a", {"sys/fs/cgroup/a/cpu.max": text})
    assert cpu_limit(root) is None


def test_a_path_that_climbs_out_of_the_mount_reads_the_mount_itself(tmp_path):
    root = _v2(tmp_path, "/../../etc", {"sys/fs/cgroup/cpu.max": "100000 100000\n"})
    limit = cpu_limit(root)
    assert limit is not None and limit.where == root / "sys/fs/cgroup"


def test_usable_cores_without_a_limit_is_the_affinity_mask():
    assert usable_cores(limit=None, read=False) == len(usable_cpus()) >= 1


def _writable_cpu_hierarchy() -> tuple[Path, bool] | None:
    """A cgroup directory this process may make groups under, with the CPU controller: (path, is v2)."""
    v1 = Path("/sys/fs/cgroup/cpu")
    if (v1 / "cpu.cfs_quota_us").exists() and os.access(v1, os.W_OK):
        return v1, False
    v2 = Path("/sys/fs/cgroup")
    controllers = v2 / "cgroup.subtree_control"
    if controllers.exists() and "cpu" in controllers.read_text().split() and os.access(v2, os.W_OK):
        return v2, True
    return None


def test_a_real_cgroup_quota_is_read_from_inside_the_group():
    found = _writable_cpu_hierarchy()
    if found is None:
        pytest.skip("no cgroup CPU controller this process may make a group under")
    parent, v2 = found
    group = parent / f"spade-test-{uuid.uuid4().hex[:8]}"
    try:
        group.mkdir()
    except OSError as exc:
        pytest.skip(f"cannot make a cgroup here: {exc}")
    try:
        if v2:
            (group / "cpu.max").write_text("50000 100000\n")
        else:
            (group / "cpu.cfs_quota_us").write_text("50000\n")
        code = ("import os, sys; open(sys.argv[1], 'w').write(str(os.getpid()));"
                "from spade.cpus import cpu_limit, usable_cores; l = cpu_limit(); "
                "print(l.cores if l else None, usable_cores(limit=l, read=False))")
        out = subprocess.run([sys.executable, "-c", code, str(group / "cgroup.procs")], capture_output=True,
                             text=True, timeout=60, cwd=Path(__file__).resolve().parents[1], check=True).stdout
        assert out.split() == ["0.5", "1"]
    finally:
        group.rmdir()
