"""How many torch threads the embedded model runs on when `sampling.threads` is 0: the cores this process may use
(its affinity mask and its cgroup's CPU limit, spade.cpus), less those other processes keep busy, measured from
/proc/stat (and, under a limit, from the cgroup's own CPU time) over a short window.

Why: beside one busy process the embedded sampler ran 4-10x slower on 2 threads than on 1 (docs/benchmarks.md,
"Threads under load"; torch's OpenMP threads meet at a barrier after every operation, so one that shares its core
holds up the other), so a fixed count that fits a quiet machine is the wrong one on a shared one; under a CPU
quota, threads beyond it are throttled (spade.cpus). In: the most threads to use. Out: a count in [1, most],
re-measured at most every `every` seconds. Where nothing can be read the count is `most`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from spade.cpus import CpuLimit, cgroup_seconds, cpu_limit, nearest_core, usable_cores, usable_cpus

WINDOW_S = 0.2
EVERY_S = 30.0
_BUSY_FIELDS = (0, 1, 2, 5, 6, 7)  # user nice system irq softirq steal (guest time is inside user already)
_IDLE_FIELDS = (3, 4)  # idle iowait


def cpu_times(stat: str, cpus: Iterable[int]) -> tuple[int, int]:
    """(busy, total) jiffies summed over `cpus` from /proc/stat's text; CPUs it does not list count nothing."""
    wanted = {f"cpu{c}" for c in cpus}
    busy = total = 0
    for line in stat.splitlines():
        name, _, rest = line.partition(" ")
        if name not in wanted:
            continue
        fields = [int(x) for x in rest.split()[:8] if x.isdigit()]
        if len(fields) < 8:
            continue
        b = sum(fields[i] for i in _BUSY_FIELDS)
        busy += b
        total += b + sum(fields[i] for i in _IDLE_FIELDS)
    return busy, total


def busy_cores(before: tuple[int, int], after: tuple[int, int], cores: int, own_cores: float = 0.0) -> float:
    """Cores kept busy by other processes between two `cpu_times` readings: the busy share of the jiffies that
    passed, times `cores`, less what this process used itself (`own_cores`); within [0, cores]."""
    passed = after[1] - before[1]
    if passed <= 0:
        return 0.0
    share = (after[0] - before[0]) / passed
    return min(float(cores), max(0.0, share * cores - own_cores))


def threads_for(most: int, idle: float) -> int:
    """The thread count for `idle` cores free to this process, at most `most`: the idle cores rounded to the
    nearest whole core (halves up), never below 1."""
    return max(1, min(most, nearest_core(idle)))


def _read_stat() -> str | None:
    try:
        with open("/proc/stat", encoding="ascii") as f:
            return f.read()
    except OSError:
        return None


def measure_idle(cpus: list[int], limit: CpuLimit | None = None, window: float = WINDOW_S,
                 sleep: Callable[[float], None] = time.sleep) -> float | None:
    """Cores this process could use now, over `window` seconds: the CPUs of `cpus` other processes left idle, and
    under a cgroup `limit` no more than the limit less what the rest of its cgroup used; None where /proc/stat is
    unreadable."""
    first = _read_stat()
    if first is None:
        return None
    group = cgroup_seconds(limit) if limit is not None else None
    own, wall = time.process_time(), time.perf_counter()
    sleep(window)
    second = _read_stat()
    if second is None:
        return None
    passed = max(1e-6, time.perf_counter() - wall)
    own_cores = (time.process_time() - own) / passed
    idle = len(cpus) - busy_cores(cpu_times(first, cpus), cpu_times(second, cpus), len(cpus), own_cores)
    if limit is not None:
        after = cgroup_seconds(limit) if group is not None else None
        others = 0.0 if after is None or group is None else max(0.0, (after - group) / passed - own_cores)
        idle = min(idle, max(0.0, limit.cores - others))
    return idle


_TORCH_DEFAULT: list[int] = []


def torch_default_threads() -> int:
    """torch's own thread count as it was before this process first changed it (read once, then kept)."""
    if not _TORCH_DEFAULT:
        import torch

        _TORCH_DEFAULT.append(torch.get_num_threads())
    return _TORCH_DEFAULT[0]


class ThreadFit:
    """Sets torch's thread count to `threads_for(most, measured idle cores)`, measuring at most every `every`
    seconds. `most` defaults to torch's default count capped at the usable cores (affinity mask and cgroup CPU
    limit). `measure(cpus)` reads the idle cores (default: `measure_idle` under this process's cgroup limit).
    `chosen` is the count in force."""

    def __init__(self, most: int | None = None, every: float = EVERY_S,
                 measure: Callable[[list[int]], float | None] | None = None) -> None:
        self.cpus = usable_cpus()
        self.limit = cpu_limit()
        self.most = max(1, min(most or torch_default_threads(), usable_cores(self.cpus, self.limit, read=False)))
        self.every = every
        self.measure = measure or (lambda cpus: measure_idle(cpus, self.limit))
        self.chosen = self.most
        self.idle: float | None = None
        self._at = float("-inf")

    def apply(self) -> int:
        """Re-measure if the last measurement is older than `every` seconds, set torch's threads, return them."""
        import torch

        now = time.monotonic()
        if self.most > 1 and now - self._at >= self.every:
            self.idle = self.measure(self.cpus)
            self.chosen = self.most if self.idle is None else threads_for(self.most, self.idle)
            self._at = time.monotonic()
        if torch.get_num_threads() != self.chosen:
            torch.set_num_threads(self.chosen)
        return self.chosen
