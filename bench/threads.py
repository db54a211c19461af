"""Benchmark: the embedded sampler on a fixed thread count against `sampling.threads: 0` (the count picked from
the cores other processes leave idle, spade.policy.threads), on a quiet machine and beside busy processes.

For each load level (`--loads 0,1`: that many busy-looping processes started beside the sampler, on top of
whatever else the machine runs) and each round, both policies sample the same tasks in turn (fixed first, then
the measured count), so drift hits both alike. Prints new tokens/s per policy, the ratio measured / fixed, the
count the measured policy picked, the CPU and the load average. `--quota 1` runs the sampler inside a new cgroup
limited to 1 CPU (root; the busy processes stay outside it): a container's quota, which torch's default count and
the affinity mask do not see.
Run: .venv/bin/python bench/threads.py [--fixed 2] [--loads 0,1] [--rounds 2] [--quota 1]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from machine import cpu_model, enter_cpu_quota, leave_cpu_quota  # noqa: E402

from spade.config import SamplingConfig, TrainingConfig  # noqa: E402
from spade.evaluate.suites import load_suite  # noqa: E402
from spade.policy.embedded import EmbeddedPolicy  # noqa: E402


def _spin() -> None:
    while True:
        pass


def _tokens_per_s(policy: EmbeddedPolicy, tasks: list, n: int, seed: int) -> float:
    started = time.perf_counter()
    out = policy.sample(tasks, n, seed=seed)
    return sum(c.new_tokens for row in out for c in row) / (time.perf_counter() - started)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--fixed", type=int, default=0, help="the fixed count (0: the cores this process may use)")
    p.add_argument("--loads", default="0,1", help="busy processes started beside the sampler, per level")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--tasks", type=int, default=4)
    p.add_argument("--n", type=int, default=4, help="samples per task")
    p.add_argument("--max-new-tokens", type=int, default=64)
    p.add_argument("--quota", type=float, default=0.0,
                   help="run the sampler in a new cgroup limited to this many CPUs (needs root; 0: no new group)")
    args = p.parse_args()
    group = enter_cpu_quota(args.quota) if args.quota > 0 else None
    try:
        run(args, group)
    finally:
        if group is not None:
            leave_cpu_quota(os.getpid(), group)
            group.rmdir()


def run(args: argparse.Namespace, group: Path | None) -> None:
    fixed = args.fixed or len(os.sched_getaffinity(0))
    tasks = load_suite("builtin")[: args.tasks]
    common = {"max_new_tokens": args.max_new_tokens, "temperature": 0.8}
    pinned = EmbeddedPolicy(SamplingConfig(**common, threads=fixed), TrainingConfig())
    measured = EmbeddedPolicy(SamplingConfig(**common, threads=0), TrainingConfig())
    measured.thread_fit.every = 0.0  # measure before every call: the load changes between levels
    for policy in (pinned, measured):
        policy.sample(tasks[:1], 1, seed=0)  # warm-up: first-call allocations and weight packing
    quota = f"; inside a cgroup limited to {args.quota:g} CPUs" if group is not None else ""
    print(f"CPU: {cpu_model()}; {len(os.sched_getaffinity(0))} usable CPUs{quota}; fixed count {fixed}; "
          f"{args.tasks} tasks x {args.n} samples, {args.max_new_tokens} new tokens at most")
    for level in [int(x) for x in args.loads.split(",") if x]:
        spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(level)]
        for s in spinners:
            s.start()
            if group is not None and s.pid is not None:
                leave_cpu_quota(s.pid, group)  # the load runs outside the quota, as another tenant's would
        time.sleep(1.0)
        try:
            fixed_rates, measured_rates, picked = [], [], []
            for r in range(args.rounds):
                fixed_rates.append(_tokens_per_s(pinned, tasks, args.n, seed=r))
                measured_rates.append(_tokens_per_s(measured, tasks, args.n, seed=r))
                picked.append(measured.threads_in_use)
            load = Path("/proc/loadavg").read_text().split()[0]
            f, m = sum(fixed_rates) / len(fixed_rates), sum(measured_rates) / len(measured_rates)
            print(f"{level} busy process(es) added (load average {load}): fixed {fixed} threads {f:.1f} tok/s; "
                  f"measured {picked} threads {m:.1f} tok/s; measured / fixed {m / f:.2f}x")
        finally:
            for s in spinners:
                s.terminate()
                s.join()


if __name__ == "__main__":
    main()
