"""How many torch threads the embedded model runs on when `sampling.threads` is 0: the cores this process may use,
less those other processes keep busy, measured from /proc/stat over a short window.

Why: beside one busy process the embedded sampler ran 4-10x slower on 2 threads than on 1 (docs/benchmarks.md,
"Threads under load"; torch's OpenMP threads meet at a barrier after every operation, so one that shares its core
holds up the other), so a fixed count that fits a quiet machine is the wrong one on a shared one. In: the most
threads to use. Out: a count in [1, most], re-measured at most every `every` seconds. Where /proc/stat cannot be
read the count is `most`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable

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


def threads_for(most: int, busy: float) -> int:
    """The thread count for `most` usable cores of which `busy` are held by others: the idle ones, rounded to
    the nearest whole core, never below 1."""
    return max(1, min(most, round(most - busy)))


def _read_stat() -> str | None:
    try:
        with open("/proc/stat", encoding="ascii") as f:
            return f.read()
    except OSError:
        return None


def usable_cpus() -> list[int]:
    """The CPUs this process may run on (its affinity mask), or all of them where the platform has no mask."""
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return list(range(os.cpu_count() or 1))


def measure_busy(cpus: list[int], window: float = WINDOW_S, sleep: Callable[[float], None] = time.sleep) -> float | None:
    """Cores of `cpus` that other processes kept busy over `window` seconds; None where /proc/stat is unreadable."""
    first = _read_stat()
    if first is None:
        return None
    own, wall = time.process_time(), time.perf_counter()
    sleep(window)
    second = _read_stat()
    if second is None:
        return None
    own_cores = (time.process_time() - own) / max(1e-6, time.perf_counter() - wall)
    return busy_cores(cpu_times(first, cpus), cpu_times(second, cpus), len(cpus), own_cores)


_TORCH_DEFAULT: list[int] = []


def torch_default_threads() -> int:
    """torch's own thread count as it was before this process first changed it (read once, then kept)."""
    if not _TORCH_DEFAULT:
        import torch

        _TORCH_DEFAULT.append(torch.get_num_threads())
    return _TORCH_DEFAULT[0]


class ThreadFit:
    """Sets torch's thread count to `threads_for(most, measured busy cores)`, measuring at most every `every`
    seconds. `most` defaults to torch's default count capped at the usable CPUs. `chosen` is the count in force."""

    def __init__(self, most: int | None = None, every: float = EVERY_S,
                 measure: Callable[[list[int]], float | None] = measure_busy) -> None:
        self.cpus = usable_cpus()
        self.most = max(1, min(most or torch_default_threads(), len(self.cpus)))
        self.every = every
        self.measure = measure
        self.chosen = self.most
        self.busy: float | None = None
        self._at = float("-inf")

    def apply(self) -> int:
        """Re-measure if the last measurement is older than `every` seconds, set torch's threads, return them."""
        import torch

        now = time.monotonic()
        if self.most > 1 and now - self._at >= self.every:
            self.busy = self.measure(self.cpus)
            self.chosen = self.most if self.busy is None else threads_for(self.most, self.busy)
            self._at = time.monotonic()
        if torch.get_num_threads() != self.chosen:
            torch.set_num_threads(self.chosen)
        return self.chosen
