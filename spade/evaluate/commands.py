"""`spade eval`: pass@k of the policy (base or a checkpoint) or of pre-generated samples, on a fixed suite.

In: a suite (builtin, humaneval, heldout, a task file), ks, and either a samples JSONL or sampling options (checkpoint,
n, temperature) of the embedded model or of a model behind an OpenAI-compatible endpoint (sampling.backend openai). Out: a rich table of pass@k overall and per tag, optionally the report as JSON under
RUN_DIR/evals/ with the paired bootstrap 95% CI of the difference to each checkpoint saved there before, and an
exit code. A held-out split evaluated for a run leaves out the run's own tasks. Impossible ks and conflicting
options are one-line ConfigErrors.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from spade.config import SpadeConfig
from spade.errors import ConfigError
from spade.evaluate.report import EvalReport
from spade.records import Task


def eval_command(
    suite: str,
    checkpoint: str | Path | None,
    ks: Sequence[int],
    samples_path: str | Path | None,
    n: int | None,
    temperature: float | None,
    cfg: SpadeConfig,
    *,
    run_dir: str | Path | None = None,
    limit: int | None = None,
    seed: int = 0,
) -> int:
    """Evaluate and print; n defaults to max(ks); temperature to 0 (greedy) for n = 1, else sampling's."""
    from spade.evaluate.evaluator import evaluate, grade_samples
    from spade.evaluate.progress import EvalProgress
    from spade.evaluate.suites import load_suite
    from spade.sandbox.backend import open_pool

    ks = check_ks(ks, n)
    if samples_path is not None and (checkpoint is not None or n is not None or temperature is not None):
        raise ConfigError("--samples grades completions made elsewhere; drop --checkpoint, --n and --temperature")
    tasks = load_suite(suite, cfg.generation.withhold_families)
    if run_dir is not None:
        tasks = drop_run_tasks(suite, tasks, run_dir, cfg.generation.dedup_threshold)
    limit = cfg.eval.limit if limit is None else limit
    if samples_path is None and limit > 0:  # graded samples pick their own tasks: a limit would refuse some
        tasks = tasks[:limit]
    label = suite_label(suite)
    with open_pool(cfg.executor) as pool:
        if samples_path is not None:
            report = grade_samples(pool, tasks, samples_path, ks=ks, suite=label)
            _check_graded_ks(report, ks, samples_path)
        else:
            samples = n or max(ks)
            temp = temperature if temperature is not None else (0.0 if samples == 1 else cfg.sampling.temperature)
            policy = load_policy(cfg, checkpoint)
            with EvalProgress(f"eval {label}") as progress:
                report = evaluate(policy, pool, tasks, samples=samples, temperature=temp, ks=ks, seed=seed,
                                  suite=label, progress=progress)
    print_report(report, tasks, checkpoint_label(checkpoint, samples_path))
    if run_dir is not None:
        for line in compare_with_saved(run_dir, report, checkpoint_label(checkpoint, samples_path)):
            print(line)
        path = save_report(run_dir, report, checkpoint_label(checkpoint, samples_path))
        print(f"report written to {path}")
        record_in_run(run_dir, report, checkpoint_label(checkpoint, samples_path))
    return 0


def drop_run_tasks(suite: str, tasks: list[Task], run_dir: str | Path, threshold: float) -> list[Task]:
    """A held-out split evaluated for a run loses the tasks that duplicate one the run trained on."""
    from spade.dedup.behaviour import MATCHES_NAME, read_matches
    from spade.evaluate.heldout import drop_trained
    from spade.evaluate.suites import in_distribution
    from spade.store import RunStore
    from spade.store.db import DB_NAME

    if not in_distribution(suite) or not (Path(run_dir) / DB_NAME).is_file():
        return tasks
    with RunStore(run_dir) as store:
        kept, dropped = drop_trained(tasks, store.tasks(), threshold)
    matched = set(read_matches(Path(run_dir) / MATCHES_NAME))  # trained tasks that answer them (by behaviour)
    dropped += sum(t.task_id in matched for t in kept)
    kept = [t for t in kept if t.task_id not in matched]
    print(f"{suite}: left out {dropped} of {len(tasks)} tasks that duplicate a task of the run in {run_dir} "
          "(by wording, or answered by its reference)")
    return kept


def compare_with_saved(run_dir: str | Path, report: EvalReport, checkpoint: str) -> list[str]:
    """One line per other checkpoint already evaluated on this suite under RUN_DIR/evals/: the difference in
    pass@1 (this one - that one) with its paired bootstrap 95% CI over the tasks both were graded on."""
    from spade.evaluate.stats import paired_bootstrap, paired_scores, per_task_pass

    lines = []
    for path in sorted((Path(run_dir) / "evals").glob(f"{report.suite}-*.json")):
        try:
            other = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # not a report of ours
        if not isinstance(other, dict) or other.get("suite") != report.suite or other.get("checkpoint") == checkpoint:
            continue
        _, before, after = paired_scores(per_task_pass(other), per_task_pass(report.to_dict()))
        if before:
            lines.append(f"{checkpoint} - {other.get('checkpoint')} on {report.suite}: "
                         f"{paired_bootstrap(before, after).describe()}")
    return lines


def record_in_run(run_dir: str | Path, report: EvalReport, checkpoint: str) -> None:
    """When RUN_DIR is a run, the evaluation also goes into its database as suite 'SUITE@CHECKPOINT'."""
    from spade.store import RunStore
    from spade.store.db import DB_NAME

    if not (Path(run_dir) / DB_NAME).is_file():
        return
    label = f"{report.suite}@{checkpoint}"
    with RunStore(run_dir) as store:
        iteration = store.record_eval(label, {**report.to_dict(), "suite": label, "checkpoint": checkpoint})
    print(f"recorded in {Path(run_dir) / DB_NAME} as {label} at iteration {iteration}")


def check_ks(ks: Sequence[int], n: int | None) -> tuple[int, ...]:
    """ks as sorted distinct positive ints, each at most n when n is given."""
    if not ks:
        raise ConfigError("--k is empty; give at least one k, e.g. --k 1,8")
    bad = [k for k in ks if isinstance(k, bool) or not isinstance(k, int) or k < 1]
    if bad:
        raise ConfigError(f"--k value {bad[0]!r} is invalid; every k must be a positive integer, e.g. --k 1,8")
    if n is not None and n < 1:
        raise ConfigError(f"--n {n} is invalid; draw at least 1 sample per task")
    if n is not None and max(ks) > n:
        raise ConfigError(f"--k {max(ks)} exceeds --n {n}; draw at least {max(ks)} samples per task or lower k")
    return tuple(sorted(set(ks)))


def load_policy(cfg: SpadeConfig, checkpoint: str | Path | None) -> Any:
    """The model behind an OpenAI-compatible endpoint (sampling.backend openai), or the embedded policy, with a
    checkpoint's weights when one is given (a ckpt-* dir, an adapter dir, or a checkpoints root: its best
    checkpoint, else its latest)."""
    from spade.policy.embedded import EmbeddedPolicy
    from spade.policy.weights import load_weights

    if cfg.sampling.backend == "openai":
        if checkpoint is not None:
            raise ConfigError("--checkpoint loads weights into the embedded model; an endpoint (sampling.backend "
                              "openai) is evaluated as it serves: drop --checkpoint, or --base-url")
        from spade.policy.openai_backend import OpenAIPolicy

        return OpenAIPolicy(cfg.sampling)
    policy = EmbeddedPolicy(cfg.sampling, cfg.training)
    if checkpoint is None:
        return policy
    load_weights(resolve_checkpoint(Path(checkpoint)), policy)
    return policy


def resolve_checkpoint(path: Path) -> Path:
    from spade.policy.weights import best_checkpoint, latest_checkpoint

    if not path.is_dir():
        raise ConfigError(f"--checkpoint {path} is not a directory; pass a ckpt-* directory or a checkpoints root")
    if (path / "state.json").is_file() or (path / "adapter_config.json").is_file():
        return path
    found = best_checkpoint(path) or latest_checkpoint(path)
    if found is None:
        raise ConfigError(f"--checkpoint {path} holds no checkpoint; pass a ckpt-* directory written by training")
    return found


def suite_label(suite: str) -> str:
    """A short name for a suite: the name itself, or a task file's stem."""
    return Path(suite).stem if Path(suite).suffix in (".json", ".jsonl") else suite


def checkpoint_label(checkpoint: str | Path | None, samples_path: str | Path | None) -> str:
    if samples_path is not None:
        return f"samples-{Path(samples_path).stem}"
    return "base" if checkpoint is None else Path(checkpoint).resolve().name


def save_report(run_dir: str | Path, report: EvalReport, checkpoint: str) -> Path:
    """RUN_DIR/evals/<suite>-<checkpoint>.json, written atomically."""
    out = Path(run_dir) / "evals"
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{report.suite}-{checkpoint}.json"
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps({**report.to_dict(), "checkpoint": checkpoint}, indent=1))
    os.replace(tmp, path)
    return path


def print_report(report: EvalReport, tasks: Sequence[Task], checkpoint: str) -> None:
    """One row overall, then one per tag: task count and pass@k."""
    from rich.console import Console
    from rich.table import Table

    ks = sorted(report.pass_at_k)
    table = Table(title=f"{report.suite} · {checkpoint} · {report.samples} sample(s) per task")
    table.add_column("group")
    table.add_column("tasks", justify="right")
    for k in ks:
        table.add_column(f"pass@{k}", justify="right")
    graded = {t for t, _, _ in report.per_task}
    counts: dict[str, int] = {}
    for task in tasks:
        if task.task_id in graded:
            for tag in dict.fromkeys(task.tags):
                counts[tag] = counts.get(tag, 0) + 1
    table.add_row("all", str(report.n_tasks), *(f"{report.pass_at_k[k]:.3f}" for k in ks), style="bold")
    for tag, row in report.per_tag.items():
        table.add_row(tag, str(counts.get(tag, 0)), *(f"{row[k]:.3f}" for k in ks))
    Console(width=100).print(table)


def _check_graded_ks(report: EvalReport, ks: Sequence[int], samples_path: str | Path) -> None:
    missing = [k for k in ks if k not in report.pass_at_k]
    if missing:
        raise ConfigError(
            f"--k {missing[0]} exceeds the {report.samples} completion(s) per task in {samples_path}; lower k"
        )
