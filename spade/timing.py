"""When a loop stage started, in wall and in CPU time, so the loop records both per stage.

Wall seconds (`seconds/<stage>` in the metrics) depend on what else runs on the machine; this process's CPU seconds
(`cpu_seconds/<stage>`: every thread of it, not the sandbox's child processes) do not, which is what comparing
stages across runs that shared a machine needs.
"""

from __future__ import annotations

import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Stamp:
    wall: float  # time.perf_counter()
    cpu: float  # time.process_time()


def stamp() -> Stamp:
    return Stamp(time.perf_counter(), time.process_time())


def elapsed(started: Stamp) -> Stamp:
    """Wall and CPU seconds since `started`."""
    return Stamp(time.perf_counter() - started.wall, time.process_time() - started.cpu)
