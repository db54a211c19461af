"""A/B of two versions of the sandbox's inside (zygote, watcher, template, child) in one process, under one load.

Pool A runs another checkout's spade/sandbox/inside, pool B this tree's; both use this tree's host code, so the
host-zygote protocol must be the same. They run bench/sandbox.py's non-timeout workload in alternating pairs
(AB, BA, ...) and report per pair the throughput and the sandbox's CPU per candidate (watcher, template and every
child, read from /proc), then the medians of the per-pair ratios B/A. On a shared host the CPU figure is the
steadier one. Get A with e.g.:  git archive main spade/sandbox/inside | tar -x -C /tmp/base
Run: .venv/bin/python bench/sandbox_ab.py /tmp/base/spade/sandbox/inside [--pairs 24] [--repeat 2]
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import sandbox as bench  # noqa: E402  (bench/sandbox.py: the workload and its sanity check)

import spade.sandbox.layers as layers  # noqa: E402
from spade.config import ExecutorConfig  # noqa: E402
from spade.sandbox import SandboxPool  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def tree_cpu_s(roots: list[int]) -> float:
    """CPU seconds of the processes under `roots` (themselves included), with their reaped children's."""
    children: dict[int, list[int]] = {}
    cpu: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
        cpu[int(entry)] = sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
    total, todo = 0, list(roots)
    while todo:
        pid = todo.pop()
        total += cpu.get(pid, 0)
        todo += children.get(pid, [])
    return total / TICK


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("other", help="the spade/sandbox/inside directory of the version to compare against (A)")
    parser.add_argument("--pairs", type=int, default=24)
    parser.add_argument("--repeat", type=int, default=2, help="passes over the workload per measurement")
    parser.add_argument("--isolation", default="strict")
    args = parser.parse_args()
    logging.getLogger("spade.sandbox").setLevel(logging.ERROR)
    fast = [x for x in bench.workload() if x[2] != "timeout"]
    ours = layers.INSIDE
    pools = {}
    try:
        for tag, inside in (("A", Path(args.other).resolve()), ("B", ours)):
            layers.INSIDE = inside  # read when a worker starts: this pool's zygotes run that copy
            pools[tag] = SandboxPool(ExecutorConfig(isolation=args.isolation, workers=os.cpu_count() or 1, timeout=30))
        layers.INSIDE = ours
        for pool in pools.values():
            bench.run_spade(pool, fast[:20])  # warm-up
        rate: dict[str, list[float]] = {"A": [], "B": []}
        cpu: dict[str, list[float]] = {"A": [], "B": []}
        n = len(fast) * args.repeat
        for i in range(args.pairs):
            for tag in ("AB" if i % 2 == 0 else "BA"):
                roots = pools[tag].worker_pids()
                before = tree_cpu_s(roots)
                rate[tag].append(n / bench.run_spade(pools[tag], fast * args.repeat))
                cpu[tag].append((tree_cpu_s(roots) - before) / n * 1000)
            print(f"pair {i + 1}: A {rate['A'][-1]:.0f}/s {cpu['A'][-1]:.3f} ms, B {rate['B'][-1]:.0f}/s "
                  f"{cpu['B'][-1]:.3f} ms per candidate", flush=True)
    finally:
        for pool in pools.values():
            pool.close()
    for name, series, unit in (("throughput", rate, "/s"), ("sandbox CPU per candidate", cpu, " ms")):
        ratios = [b / a for a, b in zip(series["A"], series["B"]) if a > 0]
        q1, _, q3 = statistics.quantiles(ratios, n=4)
        print(f"{name}: median A {statistics.median(series['A']):.3f}{unit}, B {statistics.median(series['B']):.3f}"
              f"{unit}; B/A median of the per-pair ratios {statistics.median(ratios):.3f} (quartiles {q1:.3f}-{q3:.3f})")


if __name__ == "__main__":
    main()
