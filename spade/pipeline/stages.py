"""The stages of one iteration, each a small function over the long-lived `Engine`.

make_tasks: generate -> validate -> dedup (plus replay). attempt: sample -> extract -> execute -> reward.
update: RFT on passing samples + checkpoint. evaluate_policy: the fixed set, never trained on.
"""

from __future__ import annotations

import hashlib
import random
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

from spade.config import SpadeConfig
from spade.curriculum import Controller, choose_replay
from spade.generate.procedural import draft_task
from spade.records import Candidate, ExecResult, Reward, Task
from spade.reward import compute_reward
from spade.store import IterationWrite, RunStore

Progress = Callable[[str, int, int], None]  # (stage, done, total)
EXTERNAL = "external"  # the controller's family for tasks without a procedural family (LLM-proposed, files)


@dataclass
class Engine:
    """The long-lived parts of a run: built once, reused by every iteration."""

    cfg: SpadeConfig
    store: RunStore
    pool: Any  # spade.sandbox.SandboxPool
    policy: Any  # spade.policy.EmbeddedPolicy
    trainer: Any  # spade.train.rft.RftTrainer, or None when update_method is not rft
    controller: Controller
    dedup: Any  # spade.dedup.DedupIndex
    eval_tasks: list[Task]  # the reported suite: the gate never reads it
    families: list[str]
    gate_tasks: list[Task] = field(default_factory=list)  # the dev split the gate decides on
    gate: Any = None  # spade.train.gate.EvalGate
    task_stream: Any = None  # TaskStream, for GRPO
    proposer: Any = None  # spade.generate.proposer.LLMProposer when generation.proposer is 'llm'
    progress: Progress = lambda stage, done, total: None  # noqa: E731
    timings: dict[str, float] = field(default_factory=dict)
    checkpoint: str | None = None  # relative to the run dir; the weights the policy holds now

    @property
    def checkpoints(self) -> Path:
        return self.store.run_dir / "checkpoints"

    def timed(self, stage: str, started: float) -> None:
        self.timings[stage] = self.timings.get(stage, 0.0) + time.perf_counter() - started


def seeded(cfg: SpadeConfig, iteration: int, purpose: str) -> int:
    """A per-iteration, per-purpose seed: the same run seed redoes an iteration identically."""
    digest = hashlib.sha256(f"{cfg.run.seed}|{iteration}|{purpose}".encode()).digest()
    return int.from_bytes(digest[:4], "little")


def make_tasks(e: Engine, w: IterationWrite) -> list[Task]:
    """Fresh validated, deduplicated tasks at the controller's difficulties, plus the replay share."""
    from spade.validate.dynamic import validate_drafts

    cfg, gen = e.cfg, e.cfg.generation
    rng = random.Random(seeded(cfg, w.iteration, "plan"))
    history = e.store.task_pass_history()
    n_replay = min(round(gen.tasks_per_iteration * cfg.evolution.replay_ratio), len(history))
    replay_ids = choose_replay(history, n_replay, rng, exclude=set())
    wanted = gen.tasks_per_iteration - len(replay_ids)
    weights = e.controller.family_weights()
    names = sorted(e.families)
    accepted: list[Task] = []
    duplicates: list[Task] = []  # validated procedural tasks that were duplicates: composed next attempt
    family_of: dict[str, str | None] = {}  # composed draft -> its seed's family
    started = time.perf_counter()
    for attempt in range(gen.max_attempts):
        need = wanted - len(accepted)
        if need <= 0:
            break
        first_index = (w.iteration * gen.max_attempts + attempt) * 1000
        if e.proposer is not None:
            drafts, batch = propose(e, w, need, first_index)
        else:
            drafts, batch = composed_retries(e, duplicates[:need], first_index), None
            family_of = {d.task_id: t.family for d, t in zip(drafts, duplicates)}
            duplicates.clear()
            for slot in range(len(drafts), need):
                family = rng.choices(names, weights=[weights.get(n, 1.0) for n in names])[0]
                drafts.append(draft_task(family, e.controller.difficulty(family), cfg.run.seed, first_index + slot,
                                         gen.public_tests, gen.hidden_tests))
        e.progress("generate", len(accepted), wanted)
        outcomes = validate_drafts(drafts, e.pool, gen)
        if batch is not None:
            record_proposals(w, batch, outcomes)
        for draft, outcome in zip(drafts, outcomes):
            if outcome.accepted and draft.task_id in family_of:  # validated as a variant, counted in its family
                outcome = replace(outcome, task=replace(outcome.task, family=family_of[draft.task_id]))
            if not outcome.accepted:
                w.rejections.append((draft.task_id, draft.family, draft.difficulty, outcome.reasons[0],
                                     "; ".join(outcome.reasons)))
                continue
            verdict = e.dedup.check(outcome.task)
            if verdict.duplicate:
                w.rejections.append((draft.task_id, draft.family, draft.difficulty, f"duplicate_{verdict.kind}",
                                     f"duplicate of {verdict.of}"))
                if gen.compose_on_duplicate and batch is None and "composed" not in outcome.task.tags:
                    duplicates.append(outcome.task)
                continue
            e.dedup.add(outcome.task)
            accepted.append(outcome.task)
            w.tasks.append((outcome.task, "generated"))
            source = outcome.task.provenance.get("source", "procedural")
            w.audit.append(("task", outcome.task.task_id, f"{source}:{outcome.task.family}", "", "accepted"))
    e.progress("generate", len(accepted), wanted)
    e.timed("generate", started)
    replayed = [e.store.task(t) for t in replay_ids]
    w.tasks.extend((t, "replay") for t in replayed)
    return accepted + replayed


def composed_retries(e: Engine, duplicates: list[Task], first_index: int) -> list[Any]:
    """Drafts composing each duplicate with a transform from another family (spade.generate.compose). They validate
    as family-less variants; make_tasks files the accepted ones under the duplicate's family, so the controller
    measures them there (at their own, higher, claimed difficulty)."""
    from spade.generate.variants import seed_variant

    gen = e.cfg.generation
    drafts = []
    for k, task in enumerate(duplicates):
        # Index >= 1: a seed's variant 0 is never composed. Distinct per iteration and attempt.
        drafts.append(seed_variant(task, e.cfg.run.seed, 1 + first_index + k, gen.public_tests, gen.hidden_tests,
                                   compose=True))
    return drafts


def propose(e: Engine, w: IterationWrite, count: int, first_index: int) -> tuple[list[Any], Any]:
    """LLM-proposed drafts at the difficulty of the 'external' family, shown recent tasks from the store."""
    examples = [t for t in e.store.tasks() if t.reference_solution][-50:]
    difficulty = e.controller.difficulty(EXTERNAL)
    batch = e.proposer.propose(count, difficulty, examples, seed=seeded(e.cfg, w.iteration, "propose"),
                               start_index=first_index)
    return batch.drafts, batch


def record_proposals(w: IterationWrite, batch: Any, outcomes: list[Any]) -> None:
    """Parse-stage rejections are data too: counted by reason and kept in the metrics (§7.1: JSON failure rate)."""
    from spade.generate.proposer import cross_check

    stats = cross_check(batch, outcomes)
    for reason, n in stats.rejected.items():
        for k in range(n):
            w.rejections.append((f"llm-{w.iteration}-{len(w.rejections)}-{k}", None, None, reason, "proposer"))
    # One round per generation attempt: counts add up over the iteration, rates are the last round's.
    for name, value in stats.metrics().items():
        counted = name.endswith(("requested", "drafted", "accepted"))
        w.metrics[name] = w.metrics.get(name, 0.0) + value if counted else value
    w.metrics["generator_parse_failure_rate"] = stats.parse_failure_rate


def attempt(e: Engine, tasks: list[Task], w: IterationWrite) -> list[tuple[Candidate, ExecResult, Reward]]:
    """Sample N solutions per task, run each in the sandbox, reward each."""
    from spade.audit import audit_result, screen_code
    from spade.policy.extract import extract_code

    cfg = e.cfg
    if not tasks:
        return []
    started = time.perf_counter()
    completions = e.policy.sample(
        tasks, cfg.sampling.sampling_n, temperature=cfg.sampling.temperature,
        seed=seeded(cfg, w.iteration, "sample"), on_progress=lambda d, t: e.progress("sample", d, t),
    )
    e.timed("sample", started)
    candidates = []
    for task, outs in zip(tasks, completions):
        for k, c in enumerate(outs):
            candidates.append(Candidate(
                candidate_id=f"{task.task_id}:{w.iteration}:{k}", task_id=task.task_id, completion=c.text,
                code=extract_code(c.text, task.entry_point), model=e.policy.name, prompt_hash=c.prompt_hash,
                prompt_variant=c.prompt_variant, new_tokens=c.new_tokens,
            ))
    by_id = {t.task_id: t for t in tasks}
    findings = {c.candidate_id: screen_code(c.code) for c in candidates}  # audit (§7.2), before execution
    started = time.perf_counter()
    done = iter(range(1, len(candidates) + 1))
    results = e.pool.score_many(
        [(by_id[c.task_id], c.code) for c in candidates],
        on_done=lambda _i: e.progress("execute", next(done), len(candidates)),
    )
    e.timed("execute", started)
    rollouts = []
    for cand, result in zip(candidates, results):
        screened = tuple(f"screen:{f}" for f in findings[cand.candidate_id])
        result = replace(result, events=result.events + screened) if screened else result
        reward = compute_reward(by_id[cand.task_id], cand.code, result, cfg.reward)
        rollouts.append((cand, result, reward))
        w.audit.append(("candidate", cand.candidate_id, cand.model, cand.prompt_hash,
                        audit_result(result.status.value, findings[cand.candidate_id], result.events)))
    w.rollouts.extend(rollouts)
    for task in tasks:
        wins = [float(r.status.value == "passed") for c, r, _ in rollouts if c.task_id == task.task_id]
        e.controller.observe(task.family or EXTERNAL, wins, difficulty=task.difficulty)
    return rollouts


def update(e: Engine, w: IterationWrite) -> dict[str, Any] | None:
    """One policy update: RFT on passing samples (this iteration's, then earlier ones: the replay share),
    or GRPO steps on this iteration's tasks. Then a checkpoint."""
    from spade.train.checkpoint import save_checkpoint

    cfg = e.cfg.training
    if cfg.update_method not in ("rft", "grpo", "dpo") or w.iteration % cfg.update_every != cfg.update_every - 1:
        return None
    started = time.perf_counter()
    e.progress("update", 0, cfg.steps_per_update)
    if cfg.update_method == "grpo":
        if not w.tasks:
            return {"skipped": "no tasks this iteration"}
        e.task_stream.tasks = [t for t, _ in w.tasks]  # tasks at the controller's current difficulties
        stats, extra = e.trainer.update(seed=seeded(e.cfg, w.iteration, "update")), {}
    elif cfg.update_method == "dpo":
        from spade.train.buffer import dpo_buffer

        pairs, extra = dpo_buffer(w.rollouts, e.store, cfg, {t.task_id: t for t, _ in w.tasks})
        if not pairs:
            return {"skipped": "no task with both passing and failing samples yet", **extra}
        stats = e.trainer.update(pairs, seed=seeded(e.cfg, w.iteration, "update"))
    else:
        from spade.train.buffer import rft_buffer
        from spade.train.rft import TrainExample

        chosen, extra = rft_buffer(w.rollouts, e.store, cfg, e.cfg.evolution.replay_ratio)
        if not chosen:
            return {"skipped": "no passing samples yet", **extra}
        tasks = {t.task_id: t for t, _ in w.tasks}
        examples = [TrainExample(tasks.get(s.task_id) or e.store.task(s.task_id), s.completion, s.prompt_variant)
                    for s in chosen]
        stats = e.trainer.update(examples, seed=seeded(e.cfg, w.iteration, "update"))
    path = save_checkpoint(e.checkpoints, w.iteration + 1, e.policy, e.trainer, extra={"iteration": w.iteration})
    e.checkpoint = str(path.relative_to(e.store.run_dir))
    e.timed("update", started)
    e.progress("update", cfg.steps_per_update, cfg.steps_per_update)
    return {**asdict(stats), "method": cfg.update_method, "checkpoint": e.checkpoint, **extra}


class TaskStream:
    """The GRPO dataset's source: cycles over the tasks the loop hands it, read lazily by the trainer."""

    def __init__(self) -> None:
        self.tasks: list[Task] = []
        self._next = 0

    def __call__(self) -> Task:
        task = self.tasks[self._next % len(self.tasks)]
        self._next += 1
        return task


def save_base_checkpoint(e: Engine) -> None:
    """Checkpoint 0: the untrained policy (LoRA at zero), so the eval gate can roll back even the first update."""
    from spade.train.checkpoint import save_checkpoint

    if e.trainer is not None and e.checkpoint is None:
        path = save_checkpoint(e.checkpoints, 0, e.policy, e.trainer, extra={"iteration": -1})
        e.checkpoint = str(path.relative_to(e.store.run_dir))


def gate(e: Engine, w: IterationWrite, label: str) -> None:
    """Eval gate (§7.2) on the dev split only: a new best is marked; a regression beyond noise restores the best
    checkpoint. The dev evaluation is recorded as suite `label`, apart from the reported ones."""
    from spade.evaluate.stats import per_task_pass
    from spade.train.checkpoint import load_checkpoint, mark_best, save_checkpoint
    from spade.train.gate import lower_lr

    if e.gate is None or e.trainer is None or e.checkpoint is None:
        return
    evaluation = evaluate_policy(e, w.iteration, label, e.gate_tasks, e.cfg.eval.gate_suite)
    w.evals.append(evaluation)
    if not evaluation["n_tasks"]:  # every dev task was trained on: nothing left to decide on
        return
    name = Path(e.checkpoint).name
    decision = e.gate.observe(name, float(evaluation["pass_at_k"]["1"]), per_task_pass(evaluation))
    w.audit.append(("gate", name, e.policy.name, "", decision.reason))
    if decision.new_best:
        mark_best(e.checkpoints, name)
    if not decision.rollback:
        return
    load_checkpoint(e.checkpoints / decision.best, e.policy, e.trainer)
    lr = lower_lr(e.trainer, e.cfg.eval.lower_lr_on_rollback)
    # The restored weights (and the lowered learning rate) become this iteration's checkpoint, so a resume
    # continues from exactly what the loop holds now.
    path = save_checkpoint(e.checkpoints, w.iteration + 1, e.policy, e.trainer, extra={"iteration": w.iteration})
    e.checkpoint = str(path.relative_to(e.store.run_dir))
    w.update = {**(w.update or {}), "rollback": True, "reason": decision.reason, "restored": decision.best, "lr": lr}
    w.audit.append(("rollback", name, e.policy.name, "", f"restored {decision.best}"))


def evaluate_policy(e: Engine, iteration: int, label: str, tasks: list[Task] | None = None,
                    suite: str | None = None) -> dict[str, Any]:
    """pass@1 (greedy by default) on the reported suite, or on `tasks` of `suite` (the gate's dev split). Tasks of
    a held-out split that duplicate one this run has trained on are left out."""
    from spade.evaluate.evaluator import evaluate
    from spade.evaluate.suites import in_distribution

    started = time.perf_counter()
    tasks, suite = (e.eval_tasks, e.cfg.eval.suite) if tasks is None else (tasks, suite or label)
    if in_distribution(suite):
        tasks = [t for t in tasks if not e.dedup.check(t).duplicate]
    ks = sorted({1, *e.cfg.eval.ks})  # the gate reads pass@1
    report = evaluate(e.policy, e.pool, tasks, samples=e.cfg.eval.samples, temperature=e.cfg.eval.temperature,
                      ks=ks, seed=seeded(e.cfg, iteration, "eval"), suite=label)
    e.timed("eval", started)
    return {**report.to_dict(), "suite": label}

