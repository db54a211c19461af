"""Benchmark: the tiny run's sampling seconds per rollout with SPADE's sampler against the previous decoder.

Runs `spade run --config configs/tiny.yaml` (the README's smoke run) with sampling.engine static (the default)
and hf (the decoder the loop used before: transformers' forward with a growing cache), alternating engines each
round so load drift hits both alike, same seed. Per run, from its database: the loop's `seconds/sample` summed
over iterations, the rollouts it sampled, new tokens/s; then per engine the median seconds per rollout and the
ratio hf / static (> 1: the static sampler is faster end to end). Evaluation greedy decoding is not counted.
Run: .venv/bin/python bench/tiny_run.py [--rounds 2] [--threads 2] [--out runs/tiny-bench]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from spade.store import RunStore
from spade.store.views import metric_rows

ENGINES = ("static", "hf")


def one_run(engine: str, run_dir: Path, threads: int, seed: int) -> dict[str, float]:
    if run_dir.exists():
        shutil.rmtree(run_dir)
    cmd = [sys.executable, "-m", "spade", "run", "--config", str(ROOT / "configs" / "tiny.yaml"),
           "--run-dir", str(run_dir), "--seed", str(seed), "--set", f"sampling.engine={engine}",
           "--set", f"sampling.threads={threads}"]
    subprocess.run(cmd, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    with RunStore(run_dir, read_only=True) as store:
        rows = metric_rows(store)
        rollouts = store.query("SELECT COUNT(*) FROM candidates")[0][0]
    sample_s = sum(v for _, name, v in rows if name == "seconds/sample")
    tok_s = [v for _, name, v in rows if name == "tokens_per_s" and v > 0]
    return {"sample_s": sample_s, "rollouts": rollouts, "s_per_rollout": sample_s / max(rollouts, 1),
            "tokens_per_s": statistics.mean(tok_s) if tok_s else 0.0}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=2, help="runs per engine, alternating")
    p.add_argument("--threads", type=int, default=2, help="torch threads (sampling.threads)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, default=Path("runs/tiny-bench"), help="where the runs are written")
    args = p.parse_args()
    results: dict[str, list[dict[str, float]]] = {e: [] for e in ENGINES}
    for r in range(args.rounds):
        for engine in ENGINES if r % 2 == 0 else ENGINES[::-1]:
            res = one_run(engine, args.out / f"{engine}-{r}", args.threads, args.seed)
            results[engine].append(res)
            print(f"round {r} {engine}: {res['sample_s']:.1f} s sampling for {res['rollouts']} rollouts = "
                  f"{res['s_per_rollout']:.3f} s/rollout, {res['tokens_per_s']:.1f} tok/s", flush=True)
    med = {e: statistics.median(x["s_per_rollout"] for x in results[e]) for e in ENGINES}
    for e in ENGINES:
        print(f"{e}: median {med[e]:.3f} s/rollout")
    print(f"hf / static seconds per rollout: {med['hf'] / med['static']:.2f}x")


if __name__ == "__main__":
    main()
