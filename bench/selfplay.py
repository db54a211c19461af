"""Benchmark: does self-play proper beat procedural co-evolution and a fixed difficulty, and does the proposer learn?

Arms from the same base SmolLM2-135M-Instruct, each given the same CPU-time budget (bench/efficacy.py's machinery:
its arm configs, CPU accounting, training and grading are imported, not copied):
  selfplay  co-evolution with selfplay.enabled: the policy proposes code-reasoning tasks beside the procedural
            families (configs/selfplay.yaml's selfplay and kinds keys), trained as proposer every
            selfplay.proposer_period solver updates, with the league and the collapse response;
  coevolve  procedural co-evolution (today's default);
  fixed     procedural, every family pinned at one difficulty;
  static    self-play's kinds on a static dataset: one set of tasks its supply draws before training, trained on
            for the same budget, nothing generated or proposed since (bench/efficacy.py's static arm);
  none      the base model.
Each arm is graded greedily (pass@1) on --suites (default: unseen families, HumanEval, the held-out suite) with paired bootstrap
CIs against the base and between arms (selfplay - coevolve, coevolve - fixed, selfplay - fixed). For the selfplay
arm, the proposer's validity rate and mean learnability in the last third of its iterations are compared with the
first third (bootstrap 95% CI of the difference, proposals resampled within each third); --merge pools each
recipe's seeds too (each seed's thirds by its own iterations, read from the arms' stores).
Slow (45 CPU-minutes per arm by default): .venv/bin/python bench/selfplay.py [--minutes 45] [--out runs/selfplay]
One process per arm, then one table: --arms selfplay --out runs/sp-s ... then --merge runs/sp-s runs/sp-c ...
(bench/efficacy.py --merge reads the same efficacy.json). Other seeds: --seed 1 --label=-s1.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import efficacy  # noqa: E402
from efficacy import (  # noqa: E402
    arm_config,
    evaluate_arm,
    print_difference,
    print_table,
    seed_mean,
    suite_key,
    train_arm,
)

from spade.cli import parse_sets  # noqa: E402
from spade.config import SpadeConfig, load_config  # noqa: E402
from spade.errors import ConfigError  # noqa: E402

ARMS = ("selfplay", "coevolve", "fixed", "static", "none")
COMPARED = (("selfplay", "none"), ("coevolve", "none"), ("fixed", "none"), ("static", "none"),
            ("selfplay", "coevolve"), ("coevolve", "fixed"), ("selfplay", "fixed"), ("selfplay", "static"))


def selfplay_config(base: Path | None, args: argparse.Namespace) -> SpadeConfig:
    """The coevolve arm's config with self-play's keys from --selfplay-config (selfplay and generation.kinds), the
    --set keys applied over them too (a --set selfplay.* key is the arm's, not overwritten by the recipe's)."""
    cfg = arm_config(base, "coevolve", args)
    extra = load_config(args.selfplay_config, args.sets)
    return cfg.model_copy(update={"selfplay": extra.selfplay.model_copy(update={"enabled": True}),
                                  "generation": cfg.generation.model_copy(update={"kinds": extra.generation.kinds})})


def bootstrap_diff(early: Sequence[float], late: Sequence[float], *, resamples: int = 10000,
                   seed: int = 0) -> tuple[float, float, float]:
    """mean(late) - mean(early) and its percentile bootstrap 95% CI, each group resampled on its own."""
    if not early or not late:
        return 0.0, 0.0, 0.0
    rng = random.Random(seed)
    point = sum(late) / len(late) - sum(early) / len(early)
    diffs = sorted(sum(rng.choices(late, k=len(late))) / len(late) - sum(rng.choices(early, k=len(early))) / len(early)
                   for _ in range(resamples))
    return point, min(diffs[int(0.025 * resamples)], point), max(diffs[int(0.975 * resamples) - 1], point)


def proposer_thirds(run_dir: Path) -> tuple[int, int, list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The run's proposal count, its iterations and its proposals (iteration, valid, learnability, admitted, a copy
    of the shown example) of the first and the last third of its iterations (none when it ran fewer than 3)."""
    from spade.store import RunStore

    with RunStore(run_dir, read_only=True) as store:
        rows = store.query("SELECT iteration, valid, learnability, task_id IS NOT NULL, reason = 'duplicate_example'"
                           " FROM proposals")
        iterations = store.last_iteration() + 1
    if not rows or iterations < 3:
        return len(rows), iterations, [], []
    third = iterations / 3
    return len(rows), iterations, [r for r in rows if r[0] < third], [r for r in rows if r[0] >= 2 * third]


def compare_thirds(early: Sequence[tuple[Any, ...]], late: Sequence[tuple[Any, ...]]) -> dict[str, Any]:
    """Validity, the admitted share (valid and not a near-duplicate), the copies (valid, but a copy of the example
    the prompt showed) and the admitted proposals' learnability, first third against last (bootstrap CI)."""
    out: dict[str, Any] = {}
    # A near-duplicate of a recent proposal is valid but never becomes a task: "admitted" (valid and new) tells a
    # proposer that learns apart from one that copies the example its prompt shows.
    for name, pick in (("validity", lambda r: [float(x[1]) for x in r]),
                       ("admitted", lambda r: [float(x[1] and x[3]) for x in r]),
                       ("copies", lambda r: [float(x[4]) for x in r]),
                       ("learnability", lambda r: [float(x[2]) for x in r if x[3]])):
        a, b = pick(early), pick(late)
        point, low, high = bootstrap_diff(a, b)
        out[name] = {"first_third": sum(a) / len(a) if a else None, "last_third": sum(b) / len(b) if b else None,
                     "difference": point, "ci95": [low, high], "n": [len(a), len(b)]}
    return out


def proposer_learning(run_dir: Path) -> dict[str, Any]:
    """The run's proposals, first third against last (compare_thirds), with their count and the iterations."""
    count, iterations, early, late = proposer_thirds(run_dir)
    return {"proposals": count, "iterations": iterations, **(compare_thirds(early, late) if early or late else {})}


def pooled_proposer_learning(dirs: Sequence[Path], names: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Per self-play recipe with two seeds or more among the merged arms: the seeds' first and last thirds pooled
    (each seed's thirds by its own iterations), read from the arms' stores where they are still on disk."""
    runs: dict[str, list[Path]] = {}
    for d in dirs:
        held = json.loads((d / "efficacy.json").read_text())["arms"] if (d / "efficacy.json").is_file() else {}
        for name in [n for n in names if n in held and n.startswith("selfplay")]:
            run_dir = efficacy.arm_run_dir(d, name)
            if run_dir is not None:
                runs.setdefault(re.sub(r"-s\d+$", "", name), []).append(run_dir)
    pooled = {}
    for recipe, run_dirs in runs.items():
        if len(run_dirs) < 2:
            continue
        thirds = [proposer_thirds(r) for r in run_dirs]
        pooled[f"{recipe} ({len(run_dirs)} seeds)"] = compare_thirds([x for t in thirds for x in t[2]],
                                                                    [x for t in thirds for x in t[3]])
    return pooled


def print_compared(graded: dict[str, Any]) -> None:
    """The arm pairs of COMPARED that the merged arms hold, per seed label ('', '-s1', ...) and per suite both
    were graded on, paired over the tasks both saw; then each pair over its seeds (each task's pass@1 averaged over
    the seeds graded on it, as bench/efficacy.py pools a recipe); then the proposer's first and last third of each
    self-play arm."""
    labels = sorted({name[len(arm):] for name in graded for arm in ARMS[:-1] if name.startswith(arm)})
    for label in labels:
        for new, old in COMPARED:
            if "none" in (new, old):
                continue
            a, b = graded.get(new + label), graded.get(old + label)
            if a is None or b is None:
                continue
            for suite in [s for s in a["eval"] if s in b["eval"]]:
                print_difference(f"{new + label} - {old + label}", suite, b["eval"][suite]["per_task"],
                                 a["eval"][suite]["per_task"])
    groups = {arm: [n for n in graded if n == arm or re.fullmatch(re.escape(arm) + r"-s\d+", n)] for arm in ARMS}
    for new, old in COMPARED:
        if "none" in (new, old) or len(groups[new]) + len(groups[old]) <= 2 or not groups[new] or not groups[old]:
            continue  # one seed a side: printed above
        suites = [s for s in graded[groups[new][0]]["eval"] if s in graded[groups[old][0]]["eval"]]
        for suite in suites:
            print_difference(f"{new} ({len(groups[new])} seeds) - {old} ({len(groups[old])})", suite,
                             *(seed_mean(graded, groups[g], suite) for g in (old, new)))
    for name, row in graded.items():
        if "proposer" in row:
            print(f"{name} proposer: {json.dumps(row['proposer'])}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--minutes", type=float, default=45.0, help="CPU-time training budget per arm, in minutes")
    p.add_argument("--arms", default=",".join(ARMS), help=f"comma-separated subset of {','.join(ARMS)}")
    p.add_argument("--config", type=Path, default=ROOT / "configs" / "efficacy.yaml", help="base config")
    p.add_argument("--selfplay-config", type=Path, default=ROOT / "configs" / "selfplay.yaml",
                   help="where the selfplay arm's selfplay and generation.kinds keys come from")
    p.add_argument("--fixed-difficulty", type=float, default=None)
    p.add_argument("--static-tasks", type=int, default=efficacy.STATIC_TASKS,
                   help="the static arm's set size (tasks drawn before training)")
    p.add_argument("--suites", default="heldout-unseen,humaneval,heldout")
    p.add_argument("--eval-limit", type=int, default=0, help="first N tasks of each suite (0: all)")
    p.add_argument("--eval-max-new-tokens", type=int, default=256)
    p.add_argument("--threads", type=int, default=0, help="torch threads (0: one per core)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--set", action="append", default=[], dest="set_items", metavar="SECTION.KEY=VALUE")
    p.add_argument("--label", default="", help="suffix of the arms' names (e.g. '-s1' for another seed)")
    p.add_argument("--out", type=Path, default=Path("runs/selfplay"))
    p.add_argument("--merge", type=Path, nargs="+", default=None, metavar="DIR",
                   help="train nothing: combine the efficacy.json of per-arm runs into OUT/efficacy.json")
    args = p.parse_args()
    try:
        args.sets = parse_sets(args.set_items)
    except ConfigError as exc:
        sys.exit(str(exc))
    suites = [s for s in args.suites.split(",") if s]
    if args.merge:
        efficacy.merge(args.merge, args.out)
        graded = json.loads((args.out / "efficacy.json").read_text())["arms"]
        print_compared(graded)
        for recipe, row in pooled_proposer_learning(args.merge, list(graded)).items():
            print(f"{recipe} proposer, pooled: {json.dumps(row)}")
        return
    arms = [a for a in args.arms.split(",") if a]
    unknown = [a for a in arms if a not in ARMS]
    if unknown:
        sys.exit(f"--arms: unknown arm {unknown[0]!r}; choose from {', '.join(ARMS)}")
    args.out.mkdir(parents=True, exist_ok=True)
    results_path = args.out / "efficacy.json"
    results: dict[str, Any] = {"minutes": args.minutes, "arms": {}}
    for arm in arms:
        cfg = selfplay_config(args.config, args) if arm in ("selfplay", "static") else arm_config(args.config, arm,
                                                                                                 args)
        if arm == "static":
            cfg = efficacy.static_config(cfg, args.out / arm, args.static_tasks)
        name = arm + args.label if arm != "none" else arm
        print(f"== arm {name}: {args.minutes} min budget", flush=True)
        row: dict[str, Any] = {"rollouts": 0, "updates": 0, "iterations": 0, "sets": args.set_items}
        checkpoints = None
        if arm != "none":
            row = {**train_arm(cfg, args.out / arm, 60 * args.minutes), "sets": args.set_items,
                   "withheld_families": cfg.generation.withhold_families}
            checkpoints = args.out / arm / "checkpoints"
        if arm == "selfplay":
            row["proposer"] = proposer_learning(args.out / arm)
            print(f"  proposer: {json.dumps(row['proposer'])}", flush=True)
        row["eval"] = evaluate_arm(cfg, checkpoints, suites, args.eval_limit, args.eval_max_new_tokens,
                                   args.out / arm if arm != "none" else None)
        results["arms"][name] = row
        results_path.write_text(json.dumps(results, indent=1))
    keys = [suite_key(s, 1, 0.0) for s in suites]
    print_table(results, keys)
    graded = results["arms"]
    for new, old in COMPARED:
        new, old = (new + args.label if new != "none" else new), (old + args.label if old != "none" else old)
        if new in graded and old in graded:
            for suite in keys:
                print_difference(f"{new} - {old}", suite, graded[old]["eval"][suite]["per_task"],
                                 graded[new]["eval"][suite]["per_task"])
    print(f"results: {results_path}")


if __name__ == "__main__":
    main()
