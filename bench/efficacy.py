"""Benchmark: does SPADE's loop make the embedded policy better on problems it never trained on?

Three arms from the same base SmolLM2-135M-Instruct, each given the same CPU-time budget (this process and its
sandbox workers, live ones included; fairer than wall time on a shared machine; checked before each iteration,
which is not started when its predicted end, the last iteration's CPU past the CPU used so far, passes the budget):
  coevolve  the SPADE loop as configured (the controller moves each family's difficulty);
  fixed     the same loop with every family pinned at one difficulty (--fixed-difficulty; default the config's
            initial difficulty, so the two arms start alike and differ only in the controller's moves);
  star      coevolve plus STaR's rationalisation (training.rationalize: unsolved tasks resampled with their
            reference as a hint, passing answers trained on): it learns from the generator's references too;
  static    the same recipe on a static dataset: one set of --static-tasks validated tasks, drawn by the arm's own
            supply at its initial difficulty before training (withheld families out, screened like the live
            supply), trained on for the same budget (generation.fixed_tasks): the closed set a live environment
            is claimed to beat;
  none      no training: the base model.
Unseen families: each arm trains with a quarter of the families of every kind it trains withheld entirely from
generation (generation.withhold_families: quarter seed mod 4 of a fixed shuffle, so seeds 0-3 withhold each family
once; recorded in the run's config and in efficacy.json), and is graded on heldout-unseen, the held-out tasks of
exactly those families; the base is graded on every quarter's, so each seed's arm pairs with it. Every graded
suite is also screened for contamination by behaviour (eval.contamination_suites): a generated task whose reference
answers a task of a foreign suite is not trained on; a held-out task a trained task answers is not graded.
Inside the arms the eval gate is off (eval.every = 0), so the fixed sets below never steer training; the last
checkpoint of each arm is then evaluated greedily (pass@1) on heldout-unseen and HumanEval (the headline rows),
the built-in set and the held-out suite's test split (less the tasks the arm trained on). Printed per arm: pass@1 on each suite, rollouts consumed,
updates, iterations, wall and CPU seconds; then each trained arm minus the base (and coevolve minus fixed) with a
paired bootstrap 95% CI over the tasks both were graded on. Results are also written to OUT/efficacy.json as
each arm's suites are graded, so a long run interrupted late keeps what it measured.
Slow (hours at the default budget): .venv/bin/python bench/efficacy.py [--minutes 45] [--out runs/efficacy]
In parallel, one process per arm, then one table:
  .venv/bin/python bench/efficacy.py --arms coevolve --threads 1 --out runs/eff-c &   (and fixed, none)
  .venv/bin/python bench/efficacy.py --merge runs/eff-c runs/eff-f runs/eff-n --out runs/efficacy
--set section.key=value (repeatable) sets a config key in every arm, e.g. --set training.rationalize=true;
--label '+zone' names such arms 'coevolve+zone' etc., so they merge beside the plain ones. Other seeds of a
recipe: --seed 1 --label=-s1 (or '+zone-s1'); merged, the arms 'NAME', 'NAME-s1'... are also compared as one group,
each task's pass@1 averaged over the seeds that were graded on it.
Gain against budget: one recipe and seed at --minutes 45 and 135 (--out runs/x45, runs/x135), then
  .venv/bin/python bench/efficacy.py --budget-curve runs/eff-n runs/x45 runs/x135
or from one long arm's kept checkpoints (training.keep_checkpoints; CPU used before each iteration in the run's
cpu_budget.jsonl): --reeval runs/x135 --only coevolve --checkpoint ckpt-00000016 --minutes 45 --out runs/x135-45;
directories of one budget graded at neighbouring checkpoints (ckpt-00000015, 16, 17) are averaged task by task.
--reeval DIR grades the arms of an earlier run again (their last checkpoints, the tasks they trained on left out)
on --suites, after a suite changed, keeping the rest of each row: .venv/bin/python bench/efficacy.py --reeval
runs/eff-c --suites heldout --out runs/eff-c-v2 (--only none,coevolve+t1kl: those arms alone, e.g. the base of a
merged run). Greedy pass@1 is the protocol of the target; --eval-samples 8 --eval-temperature 0.2 also reports
each task's passing share of 8 samples (suites named 'builtin@8xT0.2'), a steadier read than one greedy answer a
task: .venv/bin/python bench/efficacy.py --reeval runs/eff-c --suites builtin --eval-samples 8 --eval-temperature 0.2
--reeval DIR --average-last 3 grades the mean of each arm's last three kept checkpoints' LoRA updates instead of the
last one (named NAME+avg3: merge and --compare NAME+avg3=NAME).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from spade.cli import parse_sets  # noqa: E402
from spade.config import SpadeConfig, load_config  # noqa: E402
from spade.errors import ConfigError  # noqa: E402

ARMS = ("coevolve", "fixed", "star", "static", "none")
STATIC_TASKS = 256  # the static arm's set: a few epochs' worth of the live arm's iterations


def arm_config(base: Path | None, arm: str, args: argparse.Namespace) -> SpadeConfig:
    """The arm's config: the base config, the arm's keys, the unseen quarter withheld (unless --set names the
    withheld families) and every graded suite screened for contamination by behaviour."""
    suites = [s for s in args.suites.split(",") if s]
    overrides: dict[str, Any] = {"eval.contamination_suites": suites, **args.sets, "eval.every": 0,
                                 "run.iterations": 1_000_000, "sampling.threads": args.threads,
                                 "run.seed": args.seed}
    if "generation.withhold_families" not in args.sets:
        overrides["generation.withhold_families"] = withheld_quarter(load_config(base, args.sets), args.seed)
    if arm == "fixed":
        d = args.fixed_difficulty
        if d is None:
            d = load_config(base).evolution.initial_difficulty
        # A band of [0, 1] is never left, so the controller never moves a family off d.
        overrides |= {"evolution.initial_difficulty": d, "evolution.success_low": 0.0,
                      "evolution.success_high": 1.0}
    if arm == "star":
        overrides |= {"training.rationalize": True}
    return load_config(base, overrides)


def static_config(cfg: SpadeConfig, run_dir: Path, count: int) -> SpadeConfig:
    """`cfg` trained on a static dataset: `count` tasks its own supply draws before training (written to
    RUN_DIR.static.jsonl), self-play off."""
    path = static_set(cfg, run_dir.with_name(run_dir.name + ".static.jsonl"), count)
    return cfg.model_copy(update={
        "generation": cfg.generation.model_copy(update={"fixed_tasks": str(path)}),
        "selfplay": cfg.selfplay.model_copy(update={"enabled": False})})


def static_set(cfg: SpadeConfig, path: Path, count: int) -> Path:
    """`count` tasks as the arm's live supply makes them at its start (spade.supply.TaskSupply on a scratch store:
    its kinds and families, withheld ones out, at evolution.initial_difficulty, validated, deduplicated and screened
    against the graded suites), written to `path` as JSON lines."""
    import tempfile

    from spade.curriculum import Controller
    from spade.dedup import DedupIndex
    from spade.evaluate.contamination import checked_suites, contamination_screen
    from spade.generate.registry import resolve_families
    from spade.sandbox.backend import open_pool
    from spade.store import IterationWrite, RunStore
    from spade.supply.supply import TaskSupply
    from spade.taskio import task_to_dict

    gen = cfg.generation
    live = cfg.model_copy(update={"generation": gen.model_copy(update={"fixed_tasks": ""}),
                                  "evolution": cfg.evolution.model_copy(update={"replay_ratio": 0.0})})
    families = [f.name for f in resolve_families(gen.families, gen.kinds, gen.withhold_families)]
    tasks: list[Any] = []
    with tempfile.TemporaryDirectory(prefix="spade-static-") as scratch, open_pool(cfg.executor) as pool:
        store = RunStore(Path(scratch) / "run", create=True)
        screen = contamination_screen(store.run_dir, checked_suites(live, {}))
        supply = TaskSupply(live, store, pool, Controller(live.evolution, families),
                            DedupIndex(threshold=gen.dedup_threshold), families, screen=screen)
        for iteration in range(4 * count):
            if len(tasks) >= count:
                break
            w = IterationWrite(iteration=iteration)
            supply.draw(w)
            tasks += [t.task for t in w.tasks if t.origin == "generated"]
        store.close()
    path.write_text("".join(json.dumps(task_to_dict(t)) + "\n" for t in tasks[:count]))
    print(f"   static set: {min(count, len(tasks))} tasks -> {path}", flush=True)
    return path


QUARTERS = 4


def withheld_quarter(cfg: SpadeConfig, seed: int, quarters: tuple[int, ...] | None = None) -> list[str]:
    """The families an arm of `seed` never generates: of each kind it trains (with 2 families or more), the
    (seed mod 4)-th quarter of its families in a fixed shuffled order, so seeds 0-3 withhold every family once.
    `quarters` names other quarters (all four: the base arm, graded on every seed's unseen families)."""
    import random

    from spade.generate.registry import resolve_families

    chosen = (seed % QUARTERS,) if quarters is None else quarters
    by_kind: dict[str, list[str]] = {}
    for family in resolve_families(cfg.generation.families, cfg.generation.kinds):
        by_kind.setdefault(family.kind, []).append(family.name)
    out = []
    for kind, names in sorted(by_kind.items()):
        if len(names) < 2:
            continue  # withholding a kind's only family would leave the kind nothing to draw
        order = sorted(names)
        random.Random(f"spade-withhold|{kind}").shuffle(order)
        out += [name for q in chosen for name in order[q::QUARTERS]]
    return sorted(out)


def cpu_seconds() -> float:
    """CPU time of this process, its waited-for children and its live descendants (the warm sandbox workers,
    which exit only when the run ends), user + system."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime + live_descendants_cpu(os.getpid())


def live_descendants_cpu(root: int) -> float:
    """Seconds of CPU used by the live descendants of `root` and by the children they have waited for (/proc:
    utime, stime, cutime, cstime); a descendant's live children are counted on their own, so nothing twice."""
    tick = os.sysconf("SC_CLK_TCK")
    children: dict[int, list[tuple[int, int]]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:  # exited while we looked
            continue
        children.setdefault(int(fields[1]), []).append((int(entry.name), sum(int(x) for x in fields[11:15])))
    total, stack = 0, [root]
    while stack:
        for pid, ticks in children.get(stack.pop(), ()):
            total += ticks
            stack.append(pid)
    return total / tick


class CpuBudget:
    """The loop's stop() for an arm: asked before each iteration, it says stop when the next iteration's
    predicted end (CPU used so far plus the last iteration's CPU) passes the budget, so an arm ends within its
    budget instead of overshooting it by up to one iteration. The first iteration is always run (nothing to
    predict from: the time before it is the model's loading)."""

    def __init__(self, budget_s: float, clock: Callable[[], float] = cpu_seconds, log: Path | None = None) -> None:
        self.budget_s = budget_s
        self.clock = clock
        self.start = clock()
        self.asked: float | None = None  # the clock when last asked: the start of the iteration that followed
        self.last_iteration_s = 0.0
        self.log = log  # one JSON line per iteration: CPU seconds used before it (which checkpoint had how much)
        self.iteration = 0

    def __call__(self) -> bool:
        now = self.clock()
        if self.asked is not None:
            self.last_iteration_s = now - self.asked
        self.asked = now
        if self.log is not None:
            with self.log.open("a") as f:
                f.write(json.dumps({"iteration": self.iteration, "cpu_s": round(now - self.start, 1)}) + "\n")
        self.iteration += 1
        return now - self.start + self.last_iteration_s > self.budget_s


def train_arm(cfg: SpadeConfig, run_dir: Path, cpu_budget_s: float) -> dict[str, Any]:
    from spade.pipeline.loop import run
    from spade.store import RunStore

    if run_dir.exists():
        shutil.rmtree(run_dir)
    wall, cpu = time.perf_counter(), cpu_seconds()
    run(cfg, run_dir, stop=CpuBudget(cpu_budget_s, log=run_dir / "cpu_budget.jsonl"))
    wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
    with RunStore(run_dir) as store:
        counts = {name: store.query(sql)[0][0] for name, sql in {
            "rollouts": "SELECT COUNT(*) FROM candidates",
            "iterations": "SELECT COUNT(*) FROM iterations",
            "updates": "SELECT COUNT(*) FROM updates",
            "tasks": "SELECT COUNT(*) FROM tasks",
            "decisions": "SELECT COUNT(*) FROM decisions",
        }.items()}
        pass_rate = store.query("SELECT AVG(status = 'passed') FROM executions")[0][0]
        diet = training_diet(store)
    return {**counts, "train_pass_rate": pass_rate, "train_wall_s": round(wall, 1), "train_cpu_s": round(cpu, 1),
            "diet": diet}


def training_diet(store: Any) -> dict[str, Any]:
    """What the arm's passing rollouts (the RFT buffer's material) were answers to: how many, the share of the
    family with most of them, and the share that answered the policy's own proposals."""
    by_family = store.query(
        "SELECT COALESCE(t.family, ''), COUNT(*) FROM candidates c JOIN executions e USING(candidate_id)"
        " JOIN tasks t USING(task_id) WHERE e.status = 'passed' GROUP BY 1 ORDER BY 2 DESC, 1")
    proposed = store.query(
        "SELECT COUNT(*) FROM candidates c JOIN executions e USING(candidate_id) WHERE e.status = 'passed'"
        " AND c.task_id IN (SELECT task_id FROM proposals WHERE task_id IS NOT NULL)")[0][0]
    total = sum(n for _, n in by_family)
    if not total:
        return {"passing": 0}
    return {"passing": total, "top_family": by_family[0][0], "top_family_share": round(by_family[0][1] / total, 3),
            "proposals_share": round(proposed / total, 3)}


def arm_run_dir(out: Path, arm: str) -> Path | None:
    """The run directory of a trained arm under a results directory: out/<arm without its +label and -sN>."""
    for name in (arm, re.split(r"[+-]", arm, maxsplit=1)[0]):
        if (out / name / "spade.sqlite").is_file():
            return out / name
    return None


def suite_key(suite: str, samples: int, temperature: float) -> str:
    """A suite's name in the results: the suite alone for greedy pass@1 (the protocol of every table so far), else
    with its samples and temperature ('builtin@8xT1'), so sampled figures sit beside the greedy ones."""
    return suite if samples == 1 and temperature == 0 else f"{suite}@{samples}xT{temperature:g}"


def evaluate_arm(cfg: SpadeConfig, checkpoints: Path | None, suites: list[str], limit: int,
                 max_new_tokens: int, run_dir: Path | None = None, samples: int = 1,
                 temperature: float = 0.0, graded: Any = None, withheld: list[str] | None = None,
                 adapter_scale: float = 1.0, average: Sequence[Path] = ()) -> dict[str, Any]:
    """Each suite's pass@1 and per-task scores from the arm's last checkpoint; `graded(scores)` is called after
    each suite, so a caller can keep what is measured before a long evaluation ends. heldout-unseen holds the
    held-out tasks of `withheld` (default: the families the arm's config withheld). adapter_scale < 1 grades the
    checkpoint's LoRA update scaled by it (spade.policy.weights.scale_adapter); `average` (adapter directories)
    grades the mean of their LoRA updates instead (spade.policy.weights.average_adapters)."""
    from spade.evaluate.commands import drop_run_tasks, load_policy
    from spade.evaluate.evaluator import evaluate
    from spade.evaluate.progress import PeriodicLines
    from spade.evaluate.suites import UNSEEN, load_suite
    from spade.sandbox import SandboxPool

    cfg = cfg.model_copy(update={"sampling": cfg.sampling.model_copy(update={"max_new_tokens": max_new_tokens})})
    policy = load_policy(cfg, checkpoints)
    if adapter_scale != 1.0 and checkpoints is not None:
        from spade.policy.weights import scale_adapter

        scale_adapter(policy.model, adapter_scale)
    if average:
        from spade.policy.weights import average_adapters

        average_adapters(policy.model, average)
    scores: dict[str, Any] = {}
    with SandboxPool(cfg.executor) as pool:
        unseen = cfg.generation.withhold_families if withheld is None else withheld
        for suite in suites:
            if suite == UNSEEN and not unseen:
                print(f"  {suite}: skipped (this arm withheld no family)", flush=True)
                continue
            tasks = load_suite(suite, unseen)
            if run_dir is not None:  # a held-out split loses the arm's own tasks
                tasks = drop_run_tasks(suite, tasks, run_dir, cfg.generation.dedup_threshold)
            tasks = tasks[:limit] if limit else tasks
            started = time.perf_counter()
            report = evaluate(policy, pool, tasks, samples=samples, temperature=temperature, ks=(1,), seed=0,
                              suite=suite, progress=PeriodicLines(every_s=60, prefix=f"  {suite}: "))
            key = suite_key(suite, samples, temperature)
            scores[key] = {"pass@1": report.pass_at_k[1], "tasks": report.n_tasks,
                           "eval_s": round(time.perf_counter() - started, 1),
                           "per_task": {t: c / n for t, n, c in report.per_task}}
            print(f"  {key}: pass@1 {report.pass_at_k[1]:.3f} on {report.n_tasks} tasks", flush=True)
            if graded is not None:
                graded(scores)
    return scores


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--minutes", type=float, default=45.0, help="CPU-time training budget per arm, in minutes")
    p.add_argument("--eval-max-new-tokens", type=int, default=256,
                   help="token limit when evaluating (HumanEval bodies are longer than the training tasks')")
    p.add_argument("--arms", default=",".join(ARMS), help=f"comma-separated subset of {','.join(ARMS)}")
    p.add_argument("--config", type=Path, default=ROOT / "configs" / "efficacy.yaml", help="base config")
    p.add_argument("--fixed-difficulty", type=float, default=None)
    p.add_argument("--static-tasks", type=int, default=STATIC_TASKS,
                   help="the static arm's set size (tasks drawn before training)")
    p.add_argument("--suites", default="heldout-unseen,humaneval,builtin,heldout",
                   help="graded suites, the headline ones first: heldout-unseen (the held-out tasks of the families "
                        "the arm never generated), humaneval; every one is also screened for contamination")
    p.add_argument("--eval-limit", type=int, default=0, help="first N tasks of each suite (0: all)")
    p.add_argument("--eval-samples", type=int, default=1,
                   help="samples per task when evaluating; above 1, pass@1 is each task's passing share and the "
                        "suite is reported as SUITE@NxT (use with --eval-temperature)")
    p.add_argument("--eval-temperature", type=float, default=0.0, help="sampling temperature when evaluating "
                   "(0: greedy, the protocol of the target)")
    p.add_argument("--threads", type=int, default=0, help="torch threads (0: one per core)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--set", action="append", default=[], dest="set_items", metavar="SECTION.KEY=VALUE",
                   help="a config key for every arm, as in `spade run --set` (e.g. training.rationalize=true)")
    p.add_argument("--label", default="", help="suffix of the arms' names in the results (e.g. '+zone' for arms "
                   "run with --set keys, so they merge beside the plain arms as 'coevolve+zone')")
    p.add_argument("--out", type=Path, default=Path("runs/efficacy"))
    p.add_argument("--reeval", type=Path, default=None, metavar="DIR",
                   help="train nothing: grade DIR's arms (their last checkpoints) again on --suites and write OUT/"
                        "efficacy.json with those suites' figures replaced")
    p.add_argument("--adapter-scale", type=float, default=1.0, metavar="A",
                   help="with --reeval: grade each trained arm's LoRA update scaled by A in 0..1 (0: the base, 1: as "
                        "trained; weight-space ensembling), the arm named NAME+aA(-sN)")
    p.add_argument("--average-last", type=int, default=0, metavar="K",
                   help="with --reeval: grade the mean of each trained arm's last K kept checkpoints' LoRA updates "
                        "(latest-weight averaging; a run keeps training.keep_checkpoints), the arm named "
                        "NAME+avgK(-sN)")
    p.add_argument("--checkpoint", default="", metavar="NAME",
                   help="with --reeval and one arm: grade this checkpoint of it (e.g. ckpt-00000016) instead of the "
                        "last, recorded as the budget --minutes (the CPU minutes it had used: the arm's "
                        "cpu_budget.jsonl), for --budget-curve")
    p.add_argument("--only", default="", metavar="NAMES",
                   help="with --reeval: grade only these arms (comma-separated, as named in the results) and write "
                        "only them")
    p.add_argument("--budget-curve", type=Path, nargs="+", default=None, metavar="DIR",
                   help="train nothing: one recipe and seed run at several --minutes (one trained arm per DIR, the "
                        "base in one of them): each budget minus the base and each budget minus the one before it; "
                        "DIRs of one budget (neighbouring checkpoints) are averaged task by task")
    p.add_argument("--merge", type=Path, nargs="+", default=None, metavar="DIR",
                   help="train nothing: combine the efficacy.json of runs made in parallel (e.g. one process per "
                        "arm) into OUT/efficacy.json and print their table and differences")
    p.add_argument("--compare", action="append", default=[], metavar="NEW=OLD",
                   help="with --merge: also compare two recipes on the seeds both ran (e.g. "
                        "coevolve+ep1=coevolve+lora15: arms NEW[-sN] against OLD[-sN]), per-task means over those "
                        "seeds, and their pooled rollouts per CPU-minute")
    args = p.parse_args()
    if args.eval_samples < 1 or args.eval_temperature < 0 or (args.eval_samples > 1 and args.eval_temperature == 0):
        sys.exit(f"--eval-samples {args.eval_samples} --eval-temperature {args.eval_temperature}: give at least one "
                 "sample, a temperature >= 0, and a temperature above 0 with more than one sample (greedy "
                 "samples are all alike)")
    try:
        args.sets = parse_sets(args.set_items)
    except ConfigError as exc:
        sys.exit(str(exc))
    if not 0 <= args.adapter_scale <= 1 or (args.adapter_scale != 1 and not args.reeval):
        sys.exit(f"--adapter-scale {args.adapter_scale}: give a scale in 0..1, with --reeval DIR (it grades trained "
                 "arms again)")
    if args.average_last < 0 or (args.average_last and (not args.reeval or args.checkpoint
                                                         or args.adapter_scale != 1)):
        sys.exit(f"--average-last {args.average_last}: give K >= 1 with --reeval DIR, without --checkpoint or "
                 "--adapter-scale (it grades the mean of the last K checkpoints)")
    if args.compare and not args.merge:
        sys.exit("--compare: give it with --merge DIR... (it compares arms of the merged results)")
    if args.merge:
        return merge(args.merge, args.out, args.compare)
    if args.budget_curve:
        return budget_curve(args.budget_curve, [s for s in args.suites.split(",") if s])
    if args.reeval:
        return reevaluate(args.reeval, args)
    arms = [a for a in args.arms.split(",") if a]
    unknown = [a for a in arms if a not in ARMS]
    if unknown:
        sys.exit(f"--arms: unknown arm {unknown[0]!r}; choose from {', '.join(ARMS)}")
    suites = [s for s in args.suites.split(",") if s]
    args.out.mkdir(parents=True, exist_ok=True)
    results_path = args.out / "efficacy.json"
    fixed = arm_config(args.config, "fixed", args).evolution.initial_difficulty  # the level the fixed arm holds
    results: dict[str, Any] = {"minutes": args.minutes, "fixed_difficulty": fixed, "arms": {},
                               "withhold": {"seed": args.seed, "quarter": args.seed % QUARTERS}}
    for arm in arms:
        cfg = arm_config(args.config, arm, args)
        if arm == "static":
            cfg = static_config(cfg, args.out / arm, args.static_tasks)
        name = arm + args.label if arm != "none" else arm  # the base trains nothing: --set leaves it as it is
        print(f"== arm {name}: {args.minutes} min budget", flush=True)
        # The base trains nothing: it is graded on every quarter's unseen families, so each seed's arm pairs with it.
        withheld = (cfg.generation.withhold_families if arm != "none"
                    else withheld_quarter(cfg, args.seed, tuple(range(QUARTERS))))
        print(f"   unseen families ({'all quarters' if arm == 'none' else f'seed {args.seed}'}): "
              f"{', '.join(withheld) or 'none'}", flush=True)
        row: dict[str, Any] = {"rollouts": 0, "updates": 0, "iterations": 0, "sets": args.set_items,
                               "withheld_families": withheld}
        checkpoints = None
        if arm != "none":
            row = {**train_arm(cfg, args.out / arm, 60 * args.minutes), "sets": args.set_items,
                   "withheld_families": withheld}
            checkpoints = args.out / arm / "checkpoints"
        def graded(scores: dict[str, Any], name: str = name, row: dict[str, Any] = row) -> None:
            # The suites graded so far, written as they come: an evaluation stopped late keeps them.
            results["arms"][name] = {**row, "eval": dict(scores)}
            results_path.write_text(json.dumps(results, indent=1))

        row["eval"] = evaluate_arm(cfg, checkpoints, suites, args.eval_limit, args.eval_max_new_tokens,
                                   args.out / arm if arm != "none" else None, args.eval_samples,
                                   args.eval_temperature, graded, withheld)
        results["arms"][name] = row
        results_path.write_text(json.dumps(results, indent=1))
    keys = [suite_key(s, args.eval_samples, args.eval_temperature) for s in suites]
    print_table(results, keys)
    print_differences(results, keys)
    print(f"results: {results_path}")
    print("rollouts = sampled solutions executed and rewarded; wall/cpu s = the arm's training time; "
          "rollouts/cpu-min = rollouts per CPU-minute of training (the throughput target's measure)")


def reevaluate(source: Path, args: argparse.Namespace) -> None:
    """Grade the arms recorded in SOURCE/efficacy.json again on args.suites, each from its last checkpoint and with
    the config it trained under (the base config and its recorded --set keys), the tasks it trained on left out
    as before; write args.out/efficacy.json with those suites replaced and everything else as recorded."""
    from spade.policy.weights import ADAPTER, checkpoints

    path = source / "efficacy.json"
    if not path.is_file():
        sys.exit(f"--reeval: {path} does not exist; give the --out directory of an efficacy run")
    results = json.loads(path.read_text())
    only = [a for a in args.only.split(",") if a]
    missing = [a for a in only if a not in results["arms"]]
    if missing:
        sys.exit(f"--only: {source} has no arm {missing[0]!r}; it has {', '.join(results['arms'])}")
    if only:
        results["arms"] = {a: results["arms"][a] for a in only}
    suites = [s for s in args.suites.split(",") if s]
    if args.checkpoint:
        trained = [a for a in results["arms"] if a != "none"]
        if len(trained) != 1 or len(results["arms"]) != 1:
            sys.exit(f"--checkpoint {args.checkpoint}: name one trained arm with --only (of {', '.join(trained)})")
        results["minutes"] = args.minutes
    args.out.mkdir(parents=True, exist_ok=True)
    renamed: dict[str, str] = {}
    for name, row in results["arms"].items():
        # '--label' suffixes ('+zone', '-s1') name the arm; its run directory has the plain name
        arm = re.split(r"[+-]", name, maxsplit=1)[0]
        run_dir = source / arm if arm != "none" else None
        if run_dir is not None and not (run_dir / "checkpoints").is_dir():
            sys.exit(f"--reeval: arm {name!r} has no checkpoints under {run_dir}")
        weights = run_dir / "checkpoints" if run_dir else None
        if weights is not None and run_dir is not None and args.checkpoint:
            weights = weights / args.checkpoint
            if not weights.is_dir():
                kept = sorted(p.name for p in (run_dir / "checkpoints").glob("ckpt-*"))
                sys.exit(f"--checkpoint {args.checkpoint}: not under {run_dir / 'checkpoints'}; it holds "
                         f"{', '.join(kept) or 'none'}")
            row["checkpoint"] = args.checkpoint
        average: list[Path] = []
        if weights is not None and args.average_last:
            last = checkpoints(weights)[-args.average_last:]
            if len(last) < args.average_last:
                sys.exit(f"--average-last {args.average_last}: {weights} keeps {len(last)} checkpoints; give K <= "
                         f"{len(last)}")
            average = [c / ADAPTER for c in last]
            row["averaged"] = [c.name for c in last]
            renamed[name] = variant_name(name, f"avg{args.average_last}")
        try:
            sets = parse_sets(row.get("sets") or [])  # runs before --label recorded none
        except ConfigError as exc:
            sys.exit(f"--reeval: arm {name!r}: {exc}")
        cfg = arm_config(args.config, arm, argparse.Namespace(**{**vars(args), "sets": sets}))
        print(f"== arm {name}: graded again on {', '.join(suites)}", flush=True)
        withheld = row.get("withheld_families")  # as recorded; runs before the unseen protocol withheld none
        if withheld is None and run_dir is not None:
            withheld = run_withheld(run_dir)
        if withheld is None:
            withheld = [] if run_dir is not None else withheld_quarter(cfg, args.seed, tuple(range(QUARTERS)))
        fresh = evaluate_arm(cfg, weights, suites, args.eval_limit,
                             args.eval_max_new_tokens, run_dir, args.eval_samples, args.eval_temperature,
                             withheld=withheld, adapter_scale=args.adapter_scale, average=average)
        row["eval"] = {**row["eval"], **fresh}
        row["regraded"] = sorted({*row.get("regraded", []), *fresh})
        if weights is not None and args.adapter_scale != 1.0:
            row["adapter_scale"] = args.adapter_scale
            renamed[name] = variant_name(name, f"a{args.adapter_scale:g}")
    results["arms"] = {renamed.get(n, n): row for n, row in results["arms"].items()}
    (args.out / "efficacy.json").write_text(json.dumps(results, indent=1))
    shown = list(next(iter(results["arms"].values()))["eval"])
    print_table(results, shown)
    print_differences(results, shown)


def run_withheld(run_dir: Path) -> list[str] | None:
    """The families a trained arm withheld, as its run directory's config.yaml records them (arms whose row does not:
    bench/selfplay.py's before it recorded them); None when the run wrote no config."""
    saved = run_dir / "config.yaml"
    if not saved.is_file():
        return None
    import yaml

    generation = (yaml.safe_load(saved.read_text()) or {}).get("generation") or {}
    return [str(f) for f in generation.get("withhold_families") or []]


def variant_name(arm: str, tag: str) -> str:
    """An arm graded another way (its adapter scaled: 'a0.5'; its last checkpoints averaged: 'avg3'): '+<tag>'
    before its -sN seed suffix ('coevolve-s1' -> 'coevolve+a0.5-s1'), so it merges and compares beside the arm as
    trained."""
    m = re.fullmatch(r"(.*?)(-s\d+)?", arm)
    assert m is not None
    return f"{m.group(1)}+{tag}{m.group(2) or ''}"


def merge(dirs: list[Path], out: Path, compare: Sequence[str] = ()) -> None:
    """One table from several partial runs of this script (their arms must not overlap); then each --compare pair."""
    merged: dict[str, Any] = {"arms": {}}
    parts = [json.loads((d / "efficacy.json").read_text()) for d in dirs]
    budgets = {p["minutes"] for p in parts if set(p["arms"]) - {"none"}}  # the base trains nothing: moot
    if len(budgets) > 1:
        sys.exit(f"--merge: the trained arms ran different budgets ({sorted(budgets)} minutes); merge equal ones")
    for d, part in zip(dirs, parts):
        for arm, row in part["arms"].items():  # rows written before arms recorded their diet
            run_dir = arm_run_dir(d, arm) if "diet" not in row and arm != "none" else None
            if run_dir is not None:
                from spade.store import RunStore

                with RunStore(run_dir, read_only=True) as store:
                    row["diet"] = training_diet(store)
    for part in parts:
        clash = set(part["arms"]) & set(merged["arms"])
        if clash:
            sys.exit(f"--merge: arm {sorted(clash)[0]!r} is in more than one of the directories")
        merged |= {k: v for k, v in part.items() if k != "arms"}
        merged["arms"] |= part["arms"]
    if budgets:
        merged["minutes"] = budgets.pop()
    evals = [set(row["eval"]) for row in merged["arms"].values()]
    suites = [s for s in next(iter(merged["arms"].values()))["eval"] if all(s in e for e in evals)]
    out.mkdir(parents=True, exist_ok=True)
    (out / "efficacy.json").write_text(json.dumps(merged, indent=1))
    print_table(merged, suites)
    print_differences(merged, suites)
    for pair in compare:
        new, sep, old = pair.partition("=")
        if not (sep and new and old):
            sys.exit(f"--compare {pair!r}: give NEW=OLD, two recipes' arm names without their -sN seed suffix")
        compare_recipes(merged, new, old, suites)
    print(f"results: {out / 'efficacy.json'}")


def recipe_seeds(arms: Sequence[str], recipe: str) -> dict[int, str]:
    """The arms of one recipe by seed: 'NAME' and 'NAME-s0' are seed 0, 'NAME-sK' seed K."""
    seeds: dict[int, str] = {}
    for a in arms:
        m = re.fullmatch(re.escape(recipe) + r"(?:-s(\d+))?", a)
        if m:
            seeds[int(m.group(1) or 0)] = a
    return seeds


def compare_recipes(results: dict[str, Any], new: str, old: str, suites: Sequence[str]) -> None:
    """NEW minus OLD on the seeds both ran: per-task means over those seeds (paired bootstrap), and the ratios of
    their pooled rollouts and passing rollouts per CPU-minute (summed over the seeds / CPU-minutes summed)."""
    arms = results["arms"]
    a, b = recipe_seeds(list(arms), new), recipe_seeds(list(arms), old)
    seeds = sorted(set(a) & set(b))
    if not seeds:
        sys.exit(f"--compare {new}={old}: no seed has both ({new}: seeds {sorted(a) or 'none'}, {old}: seeds "
                 f"{sorted(b) or 'none'}); name recipes as the table does, without -sN")
    title = f"{new} - {old} (seeds {','.join(map(str, seeds))})"
    for suite in suites:
        if all(suite in arms[x[s]]["eval"] for x in (a, b) for s in seeds):
            print_difference(title, suite, *(seed_mean(arms, [x[s] for s in seeds], suite) for x in (b, a)))

    def per_cpu_minute(members: list[str], passing: bool) -> float:
        cpu = sum(float(arms[m].get("train_cpu_s") or 0.0) for m in members)
        count = sum(int(arms[m].get("rollouts") or 0) * (float(arms[m].get("train_pass_rate") or 0.0) if passing
                                                          else 1.0) for m in members)
        return count / (cpu / 60) if cpu > 0 else 0.0

    for what, passing in (("rollouts", False), ("passing rollouts", True)):
        rn, ro = (per_cpu_minute([x[s] for s in seeds], passing) for x in (a, b))
        if rn and ro:
            print(f"{title}: {what} per CPU-minute {rn:.1f} against {ro:.1f} ({rn / ro:.2f}x)")


def budget_curve(dirs: list[Path], suites: list[str]) -> None:
    """Gain against budget: the trained arm of each DIR (one recipe, one seed, each DIR its own --minutes) minus
    the base, and each budget minus the next smaller one, on every suite all of them were graded on. DIRs of the
    same budget are neighbouring checkpoints of one point (--reeval --checkpoint): their per-task scores are
    averaged, so one checkpoint's swing does not make the point."""
    base: dict[str, Any] | None = None
    points: list[tuple[float, str, dict[str, Any]]] = []
    for d in dirs:
        if not (d / "efficacy.json").is_file():
            sys.exit(f"--budget-curve: {d / 'efficacy.json'} does not exist; give the --out directory of an efficacy run")
        part = json.loads((d / "efficacy.json").read_text())
        base = part["arms"].get("none", base)
        trained = [(name, row) for name, row in part["arms"].items() if name != "none"]
        if len(trained) > 1 or not part["arms"]:
            sys.exit(f"--budget-curve: {d} holds {len(trained)} trained arms; give one directory per budget")
        if trained:  # else the base's directory
            points.append((float(part["minutes"]), *trained[0]))
    if base is None:
        sys.exit("--budget-curve: no directory holds the base arm ('none'); add the base's run directory")
    points = _averaged_budgets(points)
    for suite in suites:
        if suite not in base["eval"] or not all(suite in p[2]["eval"] for p in points):
            continue
        for minutes, name, row in points:
            print_difference(f"{name} at {minutes:g} min - none", suite, base["eval"][suite]["per_task"],
                             row["eval"][suite]["per_task"])
        for (m0, _, r0), (m1, _, r1) in zip(points, points[1:]):
            print_difference(f"{m1:g} min - {m0:g} min", suite, r0["eval"][suite]["per_task"],
                             r1["eval"][suite]["per_task"])


def _averaged_budgets(points: list[tuple[float, str, dict[str, Any]]]) -> list[tuple[float, str, dict[str, Any]]]:
    """One point per budget, in budget order: a budget graded at several checkpoints (same arm) becomes the mean of
    their per-task scores on every suite all of them hold, on the tasks all of them graded."""
    out = []
    for minutes in sorted({p[0] for p in points}):
        group = [p for p in points if p[0] == minutes]
        names = {name for _, name, _ in group}
        if len(names) > 1:
            sys.exit(f"--budget-curve: {minutes:g} minutes holds arms {', '.join(sorted(names))}; directories of one "
                     "budget must be checkpoints of one arm")
        name, rows = group[0][1], [row for _, _, row in group]
        if len(rows) == 1:
            out.append((minutes, name, rows[0]))
            continue
        evals: dict[str, Any] = {}
        for suite in set.intersection(*(set(r["eval"]) for r in rows)):
            tasks = set.intersection(*(set(r["eval"][suite]["per_task"]) for r in rows))
            evals[suite] = {"per_task": {t: sum(r["eval"][suite]["per_task"][t] for r in rows) / len(rows)
                                         for t in sorted(tasks)}}
        out.append((minutes, f"{name} (mean of {len(rows)} checkpoints)", {"eval": evals}))
    return out


def print_table(results: dict[str, Any], suites: list[str]) -> None:
    head = ["arm", *(f"{s} pass@1" for s in suites), "rollouts", "updates", "iters", "wall s", "cpu s",
            "rollouts/cpu-min"]
    print(" | ".join(head))
    for arm, row in results["arms"].items():
        cpu = row.get("train_cpu_s", 0)
        cells = [arm, *(f"{row['eval'][s]['pass@1']:.3f}" if s in row["eval"] else "-" for s in suites),
                 str(row["rollouts"]),
                 str(row["updates"]), str(row["iterations"]), str(row.get("train_wall_s", 0)), str(cpu),
                 f"{60 * row['rollouts'] / cpu:.1f}" if cpu else "-"]
        print(" | ".join(cells))
    for arm, row in results["arms"].items():
        diet = row.get("diet") or {}
        if diet.get("passing"):
            print(f"{arm} trained on {diet['passing']} passing rollouts: {diet['top_family_share']:.0%} of them "
                  f"{diet['top_family']}, {diet['proposals_share']:.0%} answers to its own proposals")


def print_differences(results: dict[str, Any], suites: list[str]) -> None:
    """Each trained arm against the base, and co-evolution against fixed difficulty: the paired bootstrap 95% CI
    of the pass@1 difference over the tasks both were graded on. Then the same for a recipe run from several seeds
    (arms 'NAME', 'NAME-s1', 'NAME-s2'...: one group), each task's pass@1 averaged over the group's seeds that were
    graded on it (each seed's held-out tasks leave out what it trained on); its CI resamples tasks, so it counts
    the seeds' spread only as far as it shows in the per-task means."""
    arms = results["arms"]
    for new, old in comparisons(list(arms)):
        for suite in suites:
            if suite not in arms[old]["eval"] or suite not in arms[new]["eval"]:
                continue  # not graded on this suite (heldout-unseen of an arm that withheld nothing)
            print_difference(f"{new} - {old}", suite, arms[old]["eval"][suite]["per_task"],
                             arms[new]["eval"][suite]["per_task"])
    groups: dict[str, list[str]] = {}
    for a in arms:
        groups.setdefault(re.sub(r"-s\d+$", "", a), []).append(a)
    for new, old in comparisons(list(groups)):
        if len(groups[new]) == len(groups[old]) == 1:
            continue  # one seed a side: printed above
        for suite in suites:
            if not all(any(suite in arms[a]["eval"] for a in groups[g]) for g in (old, new)):
                continue
            print_difference(f"{new} ({len(groups[new])} seeds) - {old} ({len(groups[old])})", suite,
                             *(seed_mean(arms, groups[g], suite) for g in (old, new)))


def comparisons(arms: list[str]) -> list[tuple[str, str]]:
    """(new, old) pairs: each trained arm against the base; co-evolution against fixed difficulty and
    rationalisation against co-evolution under the same label; a lever arm ('<arm>+<lever>[-sN]') against its
    plain arm of the same seed (seed 0's plain arm carries no label)."""
    pairs = [(a, "none") for a in arms if a != "none" and "none" in arms]
    for a in arms:
        for first, second in (("coevolve", "fixed"), ("star", "coevolve")):
            if a.startswith(first) and (b := second + a[len(first):]) in arms:
                pairs.append((a, b))
        # A lever arm ('coevolve+lora15-s1', run with --set keys) against its plain arm of the same seed.
        lever = re.fullmatch(r"([a-z]+)\+[^+]+?(-s(\d+))?", a)
        if lever:
            seed = lever.group(3)
            plain = lever.group(1) + (f"-s{seed}" if seed not in (None, "0") else "")
            if plain in arms:
                pairs.append((a, plain))
    return pairs


def seed_mean(arms: dict[str, Any], members: list[str], suite: str) -> dict[str, float]:
    from spade.evaluate.stats import mean_per_task

    return mean_per_task([arms[a]["eval"][suite]["per_task"] for a in members if suite in arms[a]["eval"]])


def print_difference(title: str, suite: str, old: dict[str, float], new: dict[str, float]) -> None:
    """One comparison on one suite; on a suite with composed variants ('<seed id>~v<hash>', the held-out suite)
    its plain and composed parts apart too."""
    from spade.evaluate.stats import paired_bootstrap, paired_scores

    ids, before, after = paired_scores(old, new)
    print(f"{title} on {suite}: {paired_bootstrap(before, after).describe()}")
    composed = [i for i, t in enumerate(ids) if "~" in t]
    plain = [i for i, t in enumerate(ids) if "~" not in t]
    if composed and plain:
        for part, keep in (("plain", plain), ("composed", composed)):
            diff = paired_bootstrap([before[i] for i in keep], [after[i] for i in keep])
            print(f"  {suite} {part} only: {diff.describe()}")


if __name__ == "__main__":
    main()
