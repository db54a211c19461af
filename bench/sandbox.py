"""Benchmark: the prototype executor (docs/method.md#the-prototype-executor) vs SPADE's sandbox (strict and none).

Workload: 200 candidates × 10 tests of simple functions: ~55% passing, ~20% wrong, ~20% raising, ~5% infinite
loops. Each executor gets the same parallelism (one lane per worker). Prints executions (candidates) per second and
the ratios: once for the whole workload, then per round for the non-timeout part alone, and the medians over the
rounds. In a round SPADE runs the non-timeout part several times over (one pass takes under half a second).
Run: .venv/bin/python bench/sandbox.py [--rounds 5] [--spade-repeat 6]
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import statistics
import sys
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from spade.config import ExecutorConfig  # noqa: E402
from spade.records import Task, TestCase  # noqa: E402
from spade.sandbox import SandboxPool, UnsafeSandboxWarning  # noqa: E402
from spade.sandbox.prototype import prototype_passes  # noqa: E402

N_CANDIDATES, N_TESTS, TIME_LIMIT = 200, 10, 0.5
FUNCS = {
    "add": ("def add(a, b):\n    return a + b\n", lambda a, b: a + b),
    "mul": ("def mul(a, b):\n    return a * b\n", lambda a, b: a * b),
    "mx": ("def mx(a, b):\n    return a if a > b else b\n", lambda a, b: max(a, b)),
    "sub": ("def sub(a, b):\n    return a - b\n", lambda a, b: a - b),
}


def workload(seed: int = 0) -> list[tuple[Task, str, str]]:
    rng = random.Random(seed)
    items = []
    for i in range(N_CANDIDATES):
        name = rng.choice(sorted(FUNCS))
        good, fn = FUNCS[name]
        args = [(rng.randint(-99, 99), rng.randint(-99, 99)) for _ in range(N_TESTS)]
        tests = tuple(TestCase(a, fn(*a)) for a in args)
        task = Task(f"t{i}", "", f"def {name}(a, b):", name, 0.5, test_cases=tests[:3], hidden_test_cases=tests[3:])
        roll = rng.random()
        if roll < 0.05:
            kind, code = "timeout", f"def {name}(a, b):\n    while True:\n        pass\n"
        elif roll < 0.25:
            kind, code = "raising", f"def {name}(a, b):\n    return a + b + [][0]\n"
        elif roll < 0.45:
            kind, code = "wrong", f"def {name}(a, b):\n    return 7\n"
        else:
            kind, code = "passing", good
        items.append((task, code, kind))
    return items


def run_prototype(items: list[tuple[Task, str, str]], lanes: int) -> float:
    def one(item: tuple[Task, str, str]) -> bool:
        task, code, _ = item
        tests = [(t.args, t.expected) for t in task.all_tests]
        return prototype_passes(code, task.entry_point, tests, timeout=TIME_LIMIT * N_TESTS)

    start = time.perf_counter()
    with ThreadPoolExecutor(lanes) as ex:
        list(ex.map(one, items))
    return time.perf_counter() - start


def run_spade(pool: SandboxPool, items: list[tuple[Task, str, str]]) -> float:
    start = time.perf_counter()
    results = pool.score_many([(t, c) for t, c, _ in items], [[TIME_LIMIT] * N_TESTS] * len(items))
    elapsed = time.perf_counter() - start
    for (_, _, kind), r in zip(items, results):
        if (kind == "passing") != (r.score == 1.0):
            raise SystemExit(f"benchmark sanity check failed: a {kind} candidate scored {r.score}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=5,
                        help="rounds over the non-timeout part; each runs the three executors in turn (default 5)")
    parser.add_argument("--spade-repeat", type=int, default=6,
                        help="SPADE runs the non-timeout part this many times per round: a single pass takes under "
                             "half a second, short enough for a hiccup of the host to decide it (default 6)")
    args = parser.parse_args()
    logging.getLogger("spade.sandbox").setLevel(logging.ERROR)
    warnings.simplefilter("ignore", UnsafeSandboxWarning)
    lanes = os.cpu_count() or 1
    items = workload()
    fast = [x for x in items if x[2] != "timeout"]
    pools = {iso: SandboxPool(ExecutorConfig(isolation=iso, workers=lanes, timeout=30)) for iso in ("strict", "none")}
    names = ("prototype", "strict", "none")

    def rate(name: str, part: list[tuple[Task, str, str]], repeat: int = 1) -> float:
        """Candidates per second; SPADE runs the part `repeat` times so that its measurement is not a blip."""
        if name == "prototype":
            return len(part) / run_prototype(part, lanes)
        return len(part) * repeat / run_spade(pools[name], part * repeat)

    try:
        for pool in pools.values():  # warm-up, untimed
            run_spade(pool, fast[:10])
        whole = {name: rate(name, items) for name in names}
        rounds = []
        for r in range(args.rounds):  # the order rotates, so no executor always runs first
            order = names[r % 3:] + names[: r % 3]
            rounds.append({name: rate(name, fast, args.spade_repeat) for name in order})
    finally:
        for pool in pools.values():
            pool.close()
    print(f"{lanes} lanes, {N_CANDIDATES} candidates × {N_TESTS} tests, per-test limit {TIME_LIMIT}s")
    print(f"whole workload ({len(items)} candidates, one round): " + _line(whole))
    for i, rates in enumerate(rounds, 1):
        print(f"non-timeout part ({len(fast)} candidates), round {i}: " + _line(rates))
    median = {name: statistics.median(r[name] for r in rounds) for name in names}
    ratio = statistics.median(r["strict"] / r["prototype"] for r in rounds)
    closeness = statistics.median(r["none"] / r["strict"] for r in rounds)
    print(f"non-timeout part, median of {len(rounds)} rounds: prototype {median['prototype']:.1f}/s, "
          f"strict {median['strict']:.1f}/s, none {median['none']:.1f}/s | strict/prototype {ratio:.1f}x, "
          f"none/strict {closeness:.2f}x (medians of the per-round ratios)")


def _line(rate: dict[str, float]) -> str:
    return (f"prototype {rate['prototype']:.1f}/s, strict {rate['strict']:.1f}/s, none {rate['none']:.1f}/s | "
            f"strict/prototype {rate['strict'] / rate['prototype']:.1f}x, none/strict {rate['none'] / rate['strict']:.2f}x")


if __name__ == "__main__":
    main()
