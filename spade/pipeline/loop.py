"""The co-evolution loop, as the write-up draws it (§3.1): one page that calls the stages in order.

generate -> validate -> dedup -> sample -> execute -> reward -> co-evolve -> update -> evaluate -> commit.
Each iteration is committed to the run database in one transaction; `resume` restarts after the last one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from spade.config import SpadeConfig
from spade.pipeline import stages
from spade.pipeline.build import build_engine
from spade.pipeline.progress import LoopDisplay
from spade.pipeline.rundir import create_run, export_metrics, heartbeat, open_run
from spade.pipeline.sinks import MetricSinks
from spade.records import Rollout
from spade.reward import learnability
from spade.rollout.metrics import iteration_metrics as rollout_metrics
from spade.store import IterationWrite
from spade.store.views import update_count


def run(cfg: SpadeConfig, run_dir: Path, *, iterations: int | None = None, minutes: float | None = None,
        resume: bool = False, stop: Callable[[], bool] | None = None) -> Path:
    """Run (or resume) the loop until `iterations`, the wall-clock `minutes`, or `stop()` (asked between
    iterations, e.g. a CPU-time budget) says to end."""
    if resume:
        store, cfg = open_run(run_dir)
        sinks = MetricSinks(cfg.run, run_dir)
    else:
        sinks = MetricSinks(cfg.run, run_dir)  # refuses a missing package before a run directory is made
        check_model(cfg)  # and a model that is not on disk
        store = create_run(run_dir, cfg)
    total = iterations if iterations is not None else cfg.run.iterations
    deadline = time.monotonic() + 60 * (minutes if minutes is not None else cfg.run.minutes or 1e9)
    with LoopDisplay(total) as display, build_engine(cfg, store, display.stage) as engine:
        start = store.last_iteration() + 1
        for i in range(start, total):
            if time.monotonic() > deadline:
                display.note(f"time limit reached after {i} iterations")
                break
            if stop is not None and stop():
                display.note(f"stopped by the caller's budget after {i} iterations")
                break
            w = run_iteration(engine, i)
            store.commit_iteration(w)
            export_metrics(store)
            sinks.write(i, w.metrics)
            prune_checkpoints(engine)
            display.iteration_done(i, w.metrics, engine.controller)
    sinks.close()
    store.close()
    return run_dir


def check_model(cfg: SpadeConfig) -> None:
    """A user's model (training.model other than the embedded default) must be on disk; say so in one line."""
    from spade.policy.model_files import EMBEDDED, resolve_model

    if cfg.sampling.backend == "embedded" and cfg.training.model != EMBEDDED:
        resolve_model(cfg.training.model)


def run_iteration(e: stages.Engine, i: int) -> IterationWrite:
    w = IterationWrite(iteration=i)
    e.timings.clear()
    if i == 0:
        stages.save_base_checkpoint(e)
        if e.cfg.eval.every:
            heartbeat(e.store.run_dir, i, "eval")
            w.evals.append(stages.evaluate_policy(e, i, f"{e.cfg.eval.suite}@start"))
            stages.gate(e, w, f"{e.cfg.eval.gate_suite}@start")
    heartbeat(e.store.run_dir, i, "generate")
    tasks = stages.make_tasks(e, w)
    heartbeat(e.store.run_dir, i, "sample")
    rollouts = stages.attempt(e, tasks, w)
    heartbeat(e.store.run_dir, i, "update")
    w.update = stages.update(e, w)
    w.decisions = e.controller.maybe_adjust()
    updates_so_far = update_count(e.store) + (w.update is not None)
    if e.cfg.eval.every and w.update and w.update.checkpoint and updates_so_far % e.cfg.eval.every == 0:
        heartbeat(e.store.run_dir, i, "eval")
        w.evals.append(stages.evaluate_policy(e, i, e.cfg.eval.suite))
        stages.gate(e, w, e.cfg.eval.gate_suite)
    heartbeat(e.store.run_dir, i, "commit")
    w.metrics.update(iteration_metrics(e, w, rollouts))
    w.state = {"controller": e.controller.to_state(), "checkpoint": e.checkpoint,
               "gate": e.gate.state() if e.gate is not None else None}
    return w


def iteration_metrics(e: stages.Engine, w: IterationWrite, rollouts: list[Rollout]) -> dict[str, float]:
    """The shared task and rollout metrics (spade.rollout.metrics), then the loop's own: speed, self-play,
    seconds per stage, the update and the evaluations."""
    n = len(rollouts)
    m = rollout_metrics(rollouts, accepted=len(w.tasks_of("generated")), replayed=len(w.tasks_of("replay")),
                        rejected=len(w.rejections), controller=e.controller)
    m["tokens_per_s"] = float(getattr(e.policy, "last_tokens_per_s", 0.0))
    m["executions_per_s"] = n / e.timings["execute"] if e.timings.get("execute") else 0.0
    proposed = {t.task_id for t in w.all_tasks if t.provenance.get("source") == "llm"}
    if proposed:  # self-play: the proposer earns learnability (1 - solve rate, when 0 < rate < 1)
        rates = {tid: [r.passed for r in rollouts if r.task_id == tid] for tid in proposed}
        scores = [learnability(sum(v) / len(v)) for v in rates.values() if v]
        if scores:
            m["proposer/learnability"] = sum(scores) / len(scores)
    for stage, seconds in e.timings.items():
        m[f"seconds/{stage}"] = seconds
    if w.update and w.update.loss_last is not None:
        m["update_loss"] = w.update.loss_last
    if w.update and w.update.rollback:
        m["rollback"] = 1.0
    for ev in w.evals:
        for k, v in ev.pass_at_k.items():
            m[f"eval/{ev.suite}/pass@{k}"] = v
    return m


def prune_checkpoints(e: stages.Engine) -> None:
    """Keep the newest checkpoints and the best. Only after a commit: until then the last committed
    iteration's checkpoint must survive a crash (the current one is always the newest)."""
    from spade.train.checkpoint import prune

    if e.checkpoints.is_dir():
        prune(e.checkpoints, max(1, e.cfg.training.keep_checkpoints))
