"""The stages of one iteration, each a small function over the long-lived `Engine` that wires a stage's own module.

make_tasks: the task supply (spade.supply.supply). attempt: sample and grade (spade.rollout.attempt), recorded.
update: the data selection (spade.train.selection), the trainer's update and a checkpoint. gate: the eval gate and
rollback (spade.train.gate, spade.train.rollback). evaluate_policy: the fixed set, never trained on. metrics: what
the iteration records (spade.rollout.metrics plus the loop's own). prune_checkpoints: after each commit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from spade import rollout
from spade.config import SpadeConfig
from spade.curriculum import EXTERNAL, Controller
from spade.records import AuditEntry, EvalReport, Rollout, Task, UpdateResult
from spade.reward import learnability
from spade.rollout import Grader
from spade.rollout.metrics import iteration_metrics
from spade.seeding import seeded as seeded_by
from spade.store import IterationWrite, RunStore
from spade.supply.supply import TaskSupply
from spade.timing import Stamp, elapsed, stamp

if TYPE_CHECKING:
    from spade.dedup import DedupIndex
    from spade.dedup.behaviour import ContaminationScreen
    from spade.generate.proposer import LLMProposer
    from spade.policy.base import Policy
    from spade.sandbox import SandboxPool
    from spade.selfplay.engine import SelfPlay
    from spade.train.base import Trainer
    from spade.train.buffer import Sample
    from spade.train.gate import EvalGate

Progress = Callable[[str, int, int], None]  # (stage, done, total)


@dataclass
class Engine:
    """The long-lived parts of a run: built once, reused by every iteration."""

    cfg: SpadeConfig
    store: RunStore
    pool: SandboxPool
    policy: Policy
    trainer: Trainer | None  # None when training.update_method trains nothing here (spade.registry.TRAINERS)
    controller: Controller
    dedup: DedupIndex
    eval_tasks: list[Task]  # the reported suite: the gate never reads it
    families: list[str]
    gate_tasks: list[Task] = field(default_factory=list)  # the dev split the gate decides on
    gate: EvalGate | None = None
    proposer: LLMProposer | None = None  # when generation.proposer is 'llm'
    progress: Progress = lambda stage, done, total: None  # noqa: E731
    timings: dict[str, float] = field(default_factory=dict)  # wall seconds per stage this iteration
    cpu_timings: dict[str, float] = field(default_factory=dict)  # this process's CPU seconds per stage
    checkpoint: str | None = None  # relative to the run dir; the weights the policy holds now
    rationales: tuple[Sample, ...] = ()  # this iteration's passing hinted samples (training.rationalize), for its update
    selfplay: SelfPlay | None = None  # when selfplay.enabled (spade.selfplay)
    screen: ContaminationScreen | None = None  # contamination by behaviour against the evaluation suites

    @property
    def supply(self) -> TaskSupply:
        return TaskSupply(self.cfg, self.store, self.pool, self.controller, self.dedup, self.families, self.proposer,
                          self.progress, self.screen)

    @property
    def grader(self) -> Grader:
        return Grader(self.pool, self.cfg.reward)

    @property
    def checkpoints(self) -> Path:
        return self.store.run_dir / "checkpoints"

    def timed(self, stage: str, started: Stamp) -> None:
        took = elapsed(started)
        self.timings[stage] = self.timings.get(stage, 0.0) + took.wall
        self.cpu_timings[stage] = self.cpu_timings.get(stage, 0.0) + took.cpu


def seeded(cfg: SpadeConfig, iteration: int, purpose: str) -> int:
    """A per-iteration, per-purpose seed: the same run seed redoes an iteration identically."""
    return seeded_by(cfg.run.seed, iteration, purpose)


def make_tasks(e: Engine, w: IterationWrite) -> list[Task]:
    """Fresh validated, deduplicated tasks at the controller's difficulties, plus the replay share."""
    started = stamp()
    screened = e.screen.seconds if e.screen is not None else 0.0
    tasks = e.selfplay.draw(e, w) if e.selfplay is not None else e.supply.draw(w)
    e.timed("generate", started)
    if e.screen is not None:  # part of generate: the contamination screen's own share
        e.timings["contamination"] = e.timings.get("contamination", 0.0) + e.screen.seconds - screened
    return tasks


def attempt(e: Engine, tasks: list[Task], w: IterationWrite) -> list[Rollout]:
    """N answers per task, graded on the one grading path (spade.rollout.attempt), then recorded; with
    training.rationalize, hinted answers to the tasks none solved are kept for the update."""
    e.rationales = ()  # an iteration's rationales are for its own update only
    if not tasks:
        return []
    s = e.cfg.sampling
    temperature = e.selfplay.temperature() if e.selfplay is not None else s.temperature
    rollouts = rollout.attempt(e.policy, e.grader, tasks, n=s.sampling_n, temperature=temperature,
                               seed=seeded(e.cfg, w.iteration, "sample"), iteration=w.iteration, progress=e.progress,
                               timed=e.timed)
    record_rollouts(e, w, tasks, rollouts)
    e.rationales = rationalize_unsolved(e, w, tasks, rollouts)
    return rollouts


def rationalize_unsolved(e: Engine, w: IterationWrite, tasks: list[Task], rollouts: list[Rollout]) -> tuple[Sample, ...]:
    """With training.rationalize (RFT only): hinted samples of the tasks no rollout solved, the passing ones kept
    for this iteration's update (spade.train.rationalize); with training.references, those tasks' references (all:
    every sampled task's) too.
    They are not rollouts: neither stored as candidates nor seen by the controller, which measures the policy
    without hints."""
    cfg = e.cfg
    training = cfg.training
    updates_now = w.iteration % training.update_every == training.update_every - 1  # as `update` decides
    wanted = training.rationalize or training.reference_mode != "off"
    if not wanted or training.update_method != "rft" or e.trainer is None or not updates_now:
        return ()
    from spade.train.rationalize import rationalize, reference_answers

    references = () if training.reference_mode == "off" else \
        reference_answers(tasks, rollouts, every=training.reference_mode == "all")
    if references:
        w.metrics |= {"reference_samples": len(references)}
    if not training.rationalize:
        return references
    started = stamp()
    e.progress("rationalize", 0, 1)
    found = rationalize(e.policy, e.grader, tasks, rollouts, n=cfg.training.rationalize_samples,
                        temperature=cfg.sampling.temperature, seed=seeded(cfg, w.iteration, "rationalize"),
                        model=e.policy.name)
    w.metrics |= {"rationalize_tasks": found.hinted, "rationalize_solved": found.solved,
                  "rationalize_samples": len(found.samples)}
    e.timed("rationalize", started)
    e.progress("rationalize", 1, 1)
    return found.samples + references


def record_rollouts(e: Engine, w: IterationWrite, tasks: Sequence[Task], rollouts: list[Rollout]) -> None:
    """Graded rollouts, the loop's or a trainer's, go to the store and the audit trail, and the controller
    observes them (in its window at each task's level)."""
    w.rollouts.extend(rollouts)
    w.audit.extend(AuditEntry("candidate", r.candidate.candidate_id, r.candidate.model, r.candidate.prompt_hash,
                              rollout.audit_line(r)) for r in rollouts)
    for task in tasks:
        wins = [float(r.passed) for r in rollouts if r.task_id == task.task_id]
        if wins:
            e.controller.observe(task.family or EXTERNAL, wins, difficulty=task.difficulty)


def update(e: Engine, w: IterationWrite) -> UpdateResult | None:
    """One policy update on what spade.train.selection chooses for the method (RFT's verified buffer, DPO's
    preference pairs, GRPO's tasks, whose graded rollouts are committed like the loop's), then a checkpoint."""
    from spade.train.checkpoint import save_checkpoint
    from spade.train.selection import Sources, select_batch

    cfg = e.cfg.training
    if e.trainer is None or w.iteration % cfg.update_every != cfg.update_every - 1:
        return None
    started = stamp()
    e.progress("update", 0, cfg.steps_per_update)
    chosen = select_batch(cfg.update_method, Sources(w.rollouts, w.all_tasks, e.store, e.cfg,
                                                     seeded(e.cfg, w.iteration, "update"), w.iteration, e.rationales))
    if chosen.batch is None:
        return UpdateResult(skipped=chosen.skipped, details=chosen.details or {})
    fit_threads = getattr(e.policy, "fit_threads", None)
    if fit_threads is not None:  # the embedded model trains in this process: on the cores left idle
        fit_threads()
    result = e.trainer.update(chosen.batch)
    if chosen.details is not None:
        result = replace(result, details=chosen.details)
    if result.rollouts:
        record_rollouts(e, w, chosen.batch.tasks, list(result.rollouts))
    path = save_checkpoint(e.checkpoints, w.iteration + 1, e.policy, e.trainer, extra={"iteration": w.iteration})
    e.checkpoint = str(path.relative_to(e.store.run_dir))
    e.timed("update", started)
    e.progress("update", cfg.steps_per_update, cfg.steps_per_update)
    return replace(result, method=cfg.update_method, checkpoint=e.checkpoint)


def save_base_checkpoint(e: Engine) -> None:
    """Checkpoint 0: the untrained policy (LoRA at zero), so the eval gate can roll back even the first update."""
    from spade.train.checkpoint import save_checkpoint

    if e.trainer is not None and e.checkpoint is None:
        path = save_checkpoint(e.checkpoints, 0, e.policy, e.trainer, extra={"iteration": -1})
        e.checkpoint = str(path.relative_to(e.store.run_dir))


def gate(e: Engine, w: IterationWrite, label: str) -> None:
    """Eval gate (docs/method.md#the-eval-gate-and-rollback) on the dev split only: a new best is marked; a
    regression beyond noise restores the best checkpoint. The dev evaluation is recorded as suite `label`, apart
    from the reported ones."""
    from spade.train.checkpoint import mark_best
    from spade.train.rollback import roll_back

    if e.gate is None or e.trainer is None or e.checkpoint is None:
        return
    evaluation = evaluate_policy(e, w.iteration, label, e.gate_tasks, e.cfg.eval.gate_suite)
    w.evals.append(evaluation)
    if not evaluation.n_tasks:  # every dev task was trained on: nothing left to decide on
        return
    name = Path(e.checkpoint).name
    decision = e.gate.observe(name, float(evaluation.pass_at_k[1]), evaluation.per_task_pass())
    w.audit.append(AuditEntry("gate", name, e.policy.name, "", decision.reason))
    if decision.new_best:
        mark_best(e.checkpoints, name)
    if not decision.rollback:
        return
    path, lr = roll_back(e.checkpoints, decision.best, w.iteration + 1, e.policy, e.trainer,
                         e.cfg.eval.lower_lr_on_rollback, w.iteration)
    e.checkpoint = str(path.relative_to(e.store.run_dir))
    w.update = replace(w.update or UpdateResult(), rollback=True, reason=decision.reason, restored=decision.best, lr=lr)
    w.audit.append(AuditEntry("rollback", name, e.policy.name, "", f"restored {decision.best}"))


def evaluate_policy(e: Engine, iteration: int, label: str, tasks: list[Task] | None = None,
                    suite: str | None = None) -> EvalReport:
    """pass@1 (greedy by default) on the reported suite, or on `tasks` of `suite` (the gate's dev split). Tasks of
    a held-out split that duplicate one this run has trained on are left out."""
    from spade.evaluate.evaluator import evaluate
    from spade.evaluate.suites import in_distribution

    started = stamp()
    tasks, suite = (e.eval_tasks, e.cfg.eval.suite) if tasks is None else (tasks, suite or label)
    if in_distribution(suite):
        matched = e.screen.matched if e.screen is not None else set()
        tasks = [t for t in tasks if t.task_id not in matched and not e.dedup.check(t).duplicate]
    ks = sorted({1, *e.cfg.eval.ks})  # the gate reads pass@1
    report = evaluate(e.policy, e.pool, tasks, samples=e.cfg.eval.samples, temperature=e.cfg.eval.temperature,
                      ks=ks, seed=seeded(e.cfg, iteration, "eval"), suite=label,
                      progress=lambda stage, done, total: e.progress(f"eval {stage}", done, total))
    e.timed("eval", started)
    return report  # filed under `label`


def metrics(e: Engine, w: IterationWrite, rollouts: list[Rollout]) -> dict[str, float]:
    """The shared task and rollout metrics (spade.rollout.metrics), then the loop's own: speed, self-play,
    seconds per stage, the update and the evaluations."""
    n = len(rollouts)
    m = iteration_metrics(rollouts, accepted=len(w.tasks_of("generated")), replayed=len(w.tasks_of("replay")),
                          rejected=len(w.rejections), controller=e.controller)
    m["tokens_per_s"] = float(getattr(e.policy, "last_tokens_per_s", 0.0))
    if getattr(e.policy, "threads_in_use", 0):
        m["threads"] = float(e.policy.threads_in_use)
    m["executions_per_s"] = n / e.timings["execute"] if e.timings.get("execute") else 0.0
    proposed = {t.task_id for t in w.all_tasks if t.provenance.get("source") == "llm"}
    if proposed:  # self-play: the proposer earns learnability (1 - solve rate, when 0 < rate < 1)
        rates = {tid: [r.passed for r in rollouts if r.task_id == tid] for tid in proposed}
        scores = [learnability(sum(v) / len(v)) for v in rates.values() if v]
        if scores:
            m["proposer/learnability"] = sum(scores) / len(scores)
    for stage, seconds in e.timings.items():
        m[f"seconds/{stage}"] = seconds
    for stage, seconds in e.cpu_timings.items():
        m[f"cpu_seconds/{stage}"] = seconds
    if w.update and w.update.loss_last is not None:
        m["update_loss"] = w.update.loss_last
    if w.update and w.update.rollback:
        m["rollback"] = 1.0
    for ev in w.evals:
        for k, v in ev.pass_at_k.items():
            m[f"eval/{ev.suite}/pass@{k}"] = v
    return m


def prune_checkpoints(e: Engine) -> None:
    """Keep the newest checkpoints and the best. Only after a commit: until then the last committed
    iteration's checkpoint must survive a crash (the current one is always the newest)."""
    from spade.train.checkpoint import prune

    if e.checkpoints.is_dir():
        prune(e.checkpoints, max(1, e.cfg.training.keep_checkpoints))
