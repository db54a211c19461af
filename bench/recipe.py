"""Benchmark: which RFT recipe learns most from one batch of the loop's rollouts (a cheap proxy for efficacy.py).

Each recipe starts from the base SmolLM2-135M-Instruct, makes ONE update (one expert-iteration round) on the
rollouts already in a run's store (collected once, e.g. by `spade run` with training.update_method none), and is
then evaluated greedily (pass@1) on suites the run never trained on (the held-out dev split by default; its
tasks duplicating a run task are dropped). Recipes differ only in training keys, so the comparison isolates the
update: which samples make the buffer (learning zone, per-task cap), how many optimizer steps (epochs), the
learning rate, LoRA vs a full fine-tune. Printed per recipe: buffer size, steps, loss first/last, pass@1 per
suite, and the paired bootstrap 95% CI of the difference from the base model on the same tasks.
  .venv/bin/python bench/recipe.py --run-dir runs/collect \\
      --recipe 'steps4:' --recipe 'ep3:training.epochs=3' --recipe 'zone:training.epochs=3,training.learning_zone=true'
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from spade.config import SpadeConfig, load_config  # noqa: E402


def parse_recipe(text: str) -> tuple[str, dict[str, Any]]:
    name, _, rest = text.partition(":")
    overrides = {}
    for item in filter(None, rest.split(",")):
        key, _, value = item.partition("=")
        overrides[key.strip()] = yaml.safe_load(value)
    return name, overrides


def buffer_examples(cfg: SpadeConfig, run_dir: Path) -> list[Any]:
    from spade.store import RunStore
    from spade.train.buffer import Sample, select
    from spade.train.rft import TrainExample

    t = cfg.training
    with RunStore(run_dir) as store:
        samples = [Sample(*row) for row in store.rollouts(1_000_000)]
        chosen = select(samples, limit=t.max_examples, learning_zone=t.learning_zone, per_task=t.per_task)
        return [TrainExample(store.task(s.task_id), s.completion, s.prompt_variant) for s in chosen]


def preference_examples(cfg: SpadeConfig, run_dir: Path) -> list[Any]:
    from spade.store import RunStore
    from spade.train.buffer import dpo_buffer

    with RunStore(run_dir) as store:
        return dpo_buffer([], store, cfg.training, {})[0]


def run_recipe(name: str, cfg: SpadeConfig, run_dir: Path, suites: list[str], limit: int) -> dict[str, Any]:
    from spade.evaluate.commands import drop_run_tasks
    from spade.evaluate.evaluator import evaluate
    from spade.evaluate.suites import load_suite
    from spade.policy.embedded import EmbeddedPolicy
    from spade.sandbox import SandboxPool
    from spade.train.dpo import DpoUpdater
    from spade.train.rft import RftTrainer

    policy = EmbeddedPolicy(cfg.sampling, cfg.training)
    row: dict[str, Any] = {"recipe": name}
    if name != "base" and cfg.training.update_method == "dpo":
        examples = preference_examples(cfg, run_dir)
        stats = DpoUpdater(policy, cfg.training, seed=cfg.run.seed).update(examples, seed=cfg.run.seed)
    elif name != "base":
        examples = buffer_examples(cfg, run_dir)
        stats = RftTrainer(policy, cfg.training, seed=cfg.run.seed).update(examples, seed=cfg.run.seed)
    if name != "base":
        row |= {"examples": stats.examples, "tasks": len({e.task.task_id for e in examples}), "steps": stats.steps,
                "loss_first": round(stats.loss_first, 4), "loss_last": round(stats.loss_last, 4),
                "train_s": round(stats.seconds, 1)}
        print(f"[{name}] {row}", flush=True)
    with SandboxPool(cfg.executor) as pool:
        for suite in suites:
            tasks = drop_run_tasks(suite, load_suite(suite), run_dir, cfg.generation.dedup_threshold)
            tasks = tasks[:limit] if limit else tasks
            started = time.perf_counter()
            report = evaluate(policy, pool, tasks, samples=1, temperature=0.0, ks=(1,), seed=0, suite=suite)
            row[suite] = {"pass@1": report.pass_at_k[1], "tasks": report.n_tasks,
                          "eval_s": round(time.perf_counter() - started, 1),
                          "per_task": {t: c / n for t, n, c in report.per_task}}
            print(f"[{name}] {suite}: pass@1 {report.pass_at_k[1]:.3f} on {report.n_tasks} tasks", flush=True)
    return row


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--run-dir", type=Path, required=True, help="a run whose store holds the rollouts to learn from")
    p.add_argument("--recipe", action="append", default=[],
                   help="NAME:key=value,key=value (dotted config keys); 'base' is the untrained model")
    p.add_argument("--config", type=Path, default=ROOT / "configs" / "efficacy.yaml")
    p.add_argument("--suites", default="heldout-dev")
    p.add_argument("--eval-limit", type=int, default=0)
    p.add_argument("--eval-max-new-tokens", type=int, default=256)
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--out", type=Path, default=Path("runs/recipe.json"))
    args = p.parse_args()
    from spade.evaluate.stats import paired_bootstrap, paired_scores

    suites = [s for s in args.suites.split(",") if s]
    results = json.loads(args.out.read_text()) if args.out.is_file() else {}
    for text in args.recipe:
        name, overrides = parse_recipe(text)
        overrides = {"sampling.threads": args.threads, "sampling.max_new_tokens": args.eval_max_new_tokens,
                     **overrides}
        cfg = load_config(args.config, overrides)
        results[name] = {**run_recipe(name, cfg, args.run_dir, suites, args.eval_limit), "overrides": overrides}
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=1))
    for name, row in results.items():
        cells = [f"{s} {row[s]['pass@1']:.3f}" for s in suites if s in row]
        print(f"{name}: examples {row.get('examples', 0)} tasks {row.get('tasks', 0)} steps {row.get('steps', 0)} "
              f"loss {row.get('loss_first', '-')}->{row.get('loss_last', '-')} | {' | '.join(cells)}")
        if name != "base" and "base" in results:
            for s in suites:
                if s in row and s in results["base"]:
                    _, before, after = paired_scores(results["base"][s]["per_task"], row[s]["per_task"])
                    print(f"   {s} vs base: {paired_bootstrap(before, after).describe()}")


if __name__ == "__main__":
    main()
