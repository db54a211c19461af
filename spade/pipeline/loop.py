"""The co-evolution loop (docs/method.md#the-loop): one page that calls the stages in order.

generate -> validate -> dedup -> sample -> execute -> reward -> co-evolve -> update -> evaluate -> commit.
Each iteration is committed to the run database in one transaction; `resume` restarts after the last one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

from spade.config import SpadeConfig
from spade.pipeline import stages
from spade.pipeline.build import build_engine, check_new_run
from spade.pipeline.progress import LoopDisplay
from spade.rundir.layout import create_run, discard_run, export_metrics, heartbeat, missing_dirs, open_run
from spade.rundir.sinks import MetricSinks
from spade.store import IterationWrite, RunState
from spade.store.views import update_count


def run(cfg: SpadeConfig, run_dir: Path, *, iterations: int | None = None, minutes: float | None = None,
        resume: bool = False, stop: Callable[[], bool] | None = None) -> Path:
    """Run (or resume) the loop until `iterations`, the wall-clock `minutes`, or `stop()` (asked between
    iterations, e.g. a CPU-time budget) says to end."""
    made = missing_dirs(run_dir)
    if resume:
        store, cfg = open_run(run_dir)
        sinks = MetricSinks(cfg.run, run_dir)
    else:
        check_new_run(cfg)  # an unknown family or a model not on disk stops it before a run directory is made
        sinks = MetricSinks(cfg.run, run_dir)  # and so does a missing package
        store = create_run(run_dir, cfg)
    total = iterations if iterations is not None else cfg.run.iterations
    deadline = time.monotonic() + 60 * (minutes if minutes is not None else cfg.run.minutes or 1e9)
    with LoopDisplay(total) as display, ExitStack() as stack:
        try:
            engine = stack.enter_context(build_engine(cfg, store, display.stage))
        except Exception:
            if not resume:  # a config or model error found while building: a new run leaves nothing behind
                sinks.close()
                store.close()
                discard_run(run_dir, made)
            raise
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
            stages.prune_checkpoints(engine)
            display.iteration_done(i, w.metrics, engine.controller)
    sinks.close()
    store.close()
    return run_dir


def run_iteration(e: stages.Engine, i: int) -> IterationWrite:
    w = IterationWrite(iteration=i)
    e.timings.clear()
    e.cpu_timings.clear()
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
    if e.selfplay is not None:  # proposals rewarded, mix steered, collapse checked, proposer trained when due
        e.selfplay.after_attempt(e, w, rollouts)
    heartbeat(e.store.run_dir, i, "update")
    w.update = stages.update(e, w)
    w.decisions = e.controller.maybe_adjust()
    updates_so_far = update_count(e.store) + (w.update is not None)
    if e.cfg.eval.every and w.update and w.update.checkpoint and updates_so_far % e.cfg.eval.every == 0:
        heartbeat(e.store.run_dir, i, "eval")
        w.evals.append(stages.evaluate_policy(e, i, e.cfg.eval.suite))
        stages.gate(e, w, e.cfg.eval.gate_suite)
    heartbeat(e.store.run_dir, i, "commit")
    w.metrics.update(stages.metrics(e, w, rollouts))
    w.state = RunState(controller=e.controller.to_state(), checkpoint=e.checkpoint,
                       gate=e.gate.state() if e.gate is not None else None,
                       selfplay=e.selfplay.to_state() if e.selfplay is not None else None)
    return w
