"""Benchmark: the tiny run's sampling seconds per rollout with SPADE's sampler against the previous decoder.

Runs `spade run --config configs/tiny.yaml` (the README's smoke run) with sampling.engine static (the default)
and hf (the decoder the loop used before: transformers' forward with a growing cache), alternating engines each
round so load drift hits both alike, same seed. Per run, from its database: the loop's `seconds/sample` summed
over iterations, the rollouts it sampled, new tokens/s; then per engine the median seconds per rollout and the
ratio hf / static (> 1: the static sampler is faster end to end). Evaluation greedy decoding is not counted.
With --before REV the two arms are this tree's loop and the loop of commit REV (exported with `git archive`
into OUT/REV and run from there with this interpreter, its own configs/tiny.yaml and its default sampler): the
tiny run's sampling seconds per rollout now against then, measured back to back.
Run: .venv/bin/python bench/tiny_run.py [--rounds 2] [--threads 2] [--before REV] [--out runs/tiny-bench]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

ENGINES = ("static", "hf")


def one_run(root: Path, run_dir: Path, sampling: dict[str, object], seed: int) -> dict[str, float]:
    """The tiny run of the tree at `root` with these sampling keys set; its sampling figures from its database
    (read with SQL alone: the tree may be an older one, whose store API differs)."""
    if run_dir.exists():
        shutil.rmtree(run_dir)
    run_dir.parent.mkdir(parents=True, exist_ok=True)
    config = yaml.safe_load((root / "configs" / "tiny.yaml").read_text())
    config.setdefault("sampling", {}).update(sampling)
    config_path = run_dir.parent / f"{run_dir.name}.yaml"
    config_path.write_text(yaml.safe_dump(config))
    cmd = [sys.executable, "-m", "spade", "run", "--config", str(config_path.resolve()),
           "--run-dir", str(run_dir.resolve()), "--seed", str(seed)]
    env = {**os.environ, "PYTHONPATH": str(root)}
    subprocess.run(cmd, check=True, cwd=root, stdout=subprocess.DEVNULL, env=env)
    db = run_dir / "spade.sqlite"
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as con:
        rows = con.execute("SELECT iteration, name, value FROM metrics").fetchall()
        rollouts = con.execute("SELECT COUNT(*) FROM candidates").fetchone()[0]
    sample_s = sum(v for _, name, v in rows if name == "seconds/sample")
    tok_s = [v for _, name, v in rows if name == "tokens_per_s" and v > 0]
    return {"sample_s": sample_s, "rollouts": rollouts, "s_per_rollout": sample_s / max(rollouts, 1),
            "tokens_per_s": statistics.mean(tok_s) if tok_s else 0.0}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=2, help="runs per arm, alternating")
    p.add_argument("--threads", type=int, default=2, help="torch threads (sampling.threads)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--before", metavar="REV", help="compare with the loop of this commit instead of engine hf")
    p.add_argument("--out", type=Path, default=Path("runs/tiny-bench"), help="where the runs are written")
    args = p.parse_args()
    threads = {"threads": args.threads}
    if args.before:
        then = (args.out / args.before).resolve()
        if then.exists():
            shutil.rmtree(then)
        then.mkdir(parents=True)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.before], capture_output=True)
        if archive.returncode != 0:
            sys.exit(f"--before {args.before}: git archive failed: {archive.stderr.decode(errors='replace').strip()}")
        subprocess.run(["tar", "-x", "-C", str(then)], input=archive.stdout, check=True)
        arms = {"now": (ROOT, threads), args.before: (then, threads)}
    else:
        arms = {e: (ROOT, {**threads, "engine": e}) for e in ENGINES}
    names = list(arms)
    results: dict[str, list[dict[str, float]]] = {a: [] for a in names}
    for r in range(args.rounds):
        for arm in names if r % 2 == 0 else names[::-1]:
            root, sampling = arms[arm]
            res = one_run(root, args.out / f"{arm}-{r}", sampling, args.seed)
            results[arm].append(res)
            print(f"round {r} {arm}: {res['sample_s']:.1f} s sampling for {res['rollouts']} rollouts = "
                  f"{res['s_per_rollout']:.3f} s/rollout, {res['tokens_per_s']:.1f} tok/s", flush=True)
    med = {a: statistics.median(x["s_per_rollout"] for x in results[a]) for a in names}
    for a in names:
        print(f"{a}: median {med[a]:.3f} s/rollout")
    print(f"{names[1]} / {names[0]} seconds per rollout: {med[names[1]] / med[names[0]]:.2f}x")


if __name__ == "__main__":
    main()
