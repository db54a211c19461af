"""Benchmark: the embedded sampler's sequences/s by sampling.batch_size, on the loop's workload, in one run.

Workload: the config's loop sampling (generation.tasks_per_iteration builtin-suite tasks x sampling.n samples, the
loop's prompt variants, temperature, top_p and max_new_tokens). Each round samples the whole workload once per
batch size, in turn, so that load drift on a shared machine hits all alike; prints sequences/s and new tokens/s per
size and each size's ratio to the first (the baseline). `auto` is what sampling.batch_size: auto picks here.
Run: .venv/bin/python bench/batching.py [--config configs/default.yaml] [--sizes 32,auto] [--threads 2] [--rounds 2]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from spade.config import load_config  # noqa: E402
from spade.evaluate.suites import load_suite  # noqa: E402
from spade.policy.embedded import EmbeddedPolicy  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--config", default="configs/default.yaml")
    p.add_argument("--sizes", default="32,auto", help="comma-separated batch sizes; the first is the baseline")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--rounds", type=int, default=2)
    args = p.parse_args()
    cfg = load_config(args.config)
    sizes: list[int | str] = [s if s == "auto" else int(s) for s in args.sizes.split(",") if s]
    policy = EmbeddedPolicy(cfg.sampling.model_copy(update={"threads": args.threads}), cfg.training)
    tasks = load_suite("builtin")[: cfg.generation.tasks_per_iteration]
    n = cfg.sampling.sampling_n
    policy.sample(tasks[:1], 2, seed=0)  # warm-up (first allocation, bf16 kernels), charged to no size
    print(f"{args.config}: {len(tasks)} tasks x {n} samples, max_new_tokens {cfg.sampling.max_new_tokens}, "
          f"dtype {policy.dtype}, {args.threads} threads", flush=True)
    seq_s: dict[str, list[float]] = {str(s): [] for s in sizes}
    tok_s: dict[str, list[float]] = {str(s): [] for s in sizes}
    for r in range(args.rounds):
        for size in sizes:
            policy.sampling = policy.sampling.model_copy(update={"batch_size": size})
            started = time.perf_counter()
            out = policy.sample(tasks, n, seed=r)
            elapsed = time.perf_counter() - started
            tokens = sum(c.new_tokens for cs in out for c in cs)
            seq_s[str(size)].append(len(tasks) * n / elapsed)
            tok_s[str(size)].append(tokens / elapsed)
            texts = sorted(policy.prompt_text(t, 0) for t in tasks)
            rows = policy.batch_size_for(texts * n) if size == "auto" else size
            print(f"round {r} batch_size {size} ({rows} rows): {elapsed:.1f} s, {seq_s[str(size)][-1]:.2f} "
                  f"sequences/s, {tok_s[str(size)][-1]:.1f} new tokens/s", flush=True)
    base = statistics.median(seq_s[str(sizes[0])])
    for size in sizes:
        med = statistics.median(seq_s[str(size)])
        print(f"batch_size {size}: median {med:.2f} sequences/s, {statistics.median(tok_s[str(size)]):.1f} new "
              f"tokens/s: {med / base:.2f}x batch_size {sizes[0]}")


if __name__ == "__main__":
    main()
