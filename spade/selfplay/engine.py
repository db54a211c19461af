"""Self-play's part of an iteration: the policy proposes code-reasoning tasks, the league brings back past proposals
the solver fails and a past solver estimates the new tasks' difficulty, the rest comes from the procedural supply;
after the solver's rollouts each proposal earns its reward, the mix follows learnability, a collapse of diversity
raises the temperature, and every proposer_period solver updates the proposer role is trained (RFT on its
high-reward proposals) just before the solver's update, so the checkpoint saved next holds both. With
generator_refresh > 0 a frozen copy of the weights proposes (spade.selfplay.generator).

In: the run's Engine (spade.pipeline.stages) and the iteration's IterationWrite. Out: tasks, ProposalRecords,
audit lines and metrics on the IterationWrite; `to_state` for the RunState (resume restores it).
"""

from __future__ import annotations

import random
from collections import defaultdict
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spade.errors import ModelError, TrainingError
from spade.kinds.code_reasoning.prompt import mode_of
from spade.records import AuditEntry, Rollout, Task
from spade.seeding import seeded
from spade.selfplay.diversity import diversity
from spade.selfplay.generator import COPY_DIR, GeneratorCopy, refresh_due, take_copy
from spade.selfplay.judging import Judged, admit, bound_admitted, judge, judged, recent_index
from spade.selfplay.league import choose_league, league_due
from spade.selfplay.mix import MixState, steer
from spade.selfplay.past_solver import calibrated, can_swap, past_checkpoint, past_weights
from spade.selfplay.prompts import learnable_examples, level_of, prompt_task, proposer_prompts, recent_examples
from spade.selfplay.reward import proposer_batch
from spade.store import IterationTask, IterationWrite
from spade.store import proposals as stored
from spade.timing import stamp

if TYPE_CHECKING:
    from spade.config import SpadeConfig
    from spade.dedup import DedupIndex
    from spade.pipeline.stages import Engine
    from spade.store import RunStore

PROPOSER, PROCEDURAL, LEAGUE = "proposer", "procedural", "league"
NONDETERMINISTIC_JUDGE = "task_nondeterministic"  # a verdict's event: the task's f disagreed with itself


@dataclass
class SelfPlay:
    cfg: SpadeConfig
    mix: MixState
    recent: DedupIndex
    boost_left: int = 0
    last_proposer_iteration: int = -1
    counters: dict[str, float] = field(default_factory=dict)
    pending: list[Judged] = field(default_factory=list)
    league_ids: set[str] = field(default_factory=set)
    past_rates: dict[str, float] = field(default_factory=dict)  # the past solver's solve rate per new task
    generator: GeneratorCopy | None = None  # the frozen copy that proposes (selfplay.generator_refresh > 0)
    proposing: str | None = None  # the checkpoint whose weights made this iteration's proposals
    learner: Any = None  # the generator's own optimizer (selfplay.generator_learner; spade.selfplay.learner)

    # -- building and state ----------------------------------------------------------------------------
    @classmethod
    def build(cls, cfg: SpadeConfig, store: RunStore, state: dict[str, Any] | None) -> SelfPlay:
        state = state or {}
        return cls(cfg, MixState.from_dict(state.get("mix") or {}, cfg.selfplay), recent_index(cfg, store),
                   int(state.get("boost_left", 0)),
                   int(state.get("last_proposer_iteration", -1)),
                   {str(k): float(v) for k, v in (state.get("counters") or {}).items()},
                   generator=GeneratorCopy.from_dict(state.get("generator")))

    def to_state(self) -> dict[str, Any]:
        return {"mix": self.mix.to_dict(), "boost_left": self.boost_left,
                "last_proposer_iteration": self.last_proposer_iteration, "counters": self.counters,
                "generator": self.generator.to_dict() if self.generator else None}

    def temperature(self) -> float:
        """The solver's sampling temperature: raised by collapse_boost while collapse's response lasts."""
        base = self.cfg.sampling.temperature
        return min(2.0, base + self.cfg.selfplay.collapse_boost) if self.boost_left > 0 else base

    # -- the iteration's tasks -------------------------------------------------------------------------
    def draw(self, e: Engine, w: IterationWrite) -> list[Task]:
        """League tasks when the rule says so, the proposer's share of the fresh ones (proposals_per_slot prompts
        for each), the procedural rest."""
        sp, total = self.cfg.selfplay, self.cfg.generation.tasks_per_iteration
        self.pending, self.league_ids, self.past_rates = [], set(), {}
        due = league_due(w.iteration, sp, self.boost_left > 0)
        room = round(total * sp.league_share) if due else 0
        wanted = round((total - room) * self.mix.proposer_share)
        proposed = self._propose(e, w, wanted * sp.proposals_per_slot, wanted) if wanted > 0 else []
        rest = total - room - len(proposed)
        procedural = self._procedural(e, w, rest) if rest > 0 else []
        # Last, so a task the procedural supply replays this iteration is not drawn twice.
        league = self._league(e, w, max(0, total - len(proposed) - len(procedural)),
                              {t.task_id for t in w.all_tasks}) if due else []
        fresh = [t.task for t in w.tasks if t.origin == "generated"]  # proposals and new procedural tasks
        if due and fresh and sp.past_solver_samples > 0:
            used = self._past_solver(e, w, fresh)
            proposed, procedural = [used.get(t.task_id, t) for t in proposed], [used.get(t.task_id, t) for t in procedural]
        return proposed + procedural + league

    def _procedural(self, e: Engine, w: IterationWrite, count: int) -> list[Task]:
        from spade.supply.supply import TaskSupply

        gen = self.cfg.generation.model_copy(update={"tasks_per_iteration": count,
                                                     "kinds": self.mix.kinds(self.cfg.generation.kinds)})
        cfg = self.cfg.model_copy(update={"generation": gen})
        return TaskSupply(cfg, e.store, e.pool, e.controller, e.dedup, e.families, None, e.progress,
                          e.screen).draw(w)

    def _league(self, e: Engine, w: IterationWrite, count: int, exclude: set[str]) -> list[Task]:
        candidates = stored.league_candidates(e.store, e.checkpoint, 500)
        ids = choose_league(candidates, e.store.task_pass_history(), count, exclude=exclude)
        tasks = [e.store.task(t) for t in ids]
        w.tasks.extend(IterationTask(t, "replay") for t in tasks)
        self.league_ids = set(ids)
        by = dict(candidates)
        w.audit.extend(AuditEntry("league", t, str(by.get(t) or "base"), "", "re-entered: the solver fails it")
                       for t in ids)
        self._count("league_tasks", len(tasks))
        self._count("league_consults", 1)
        w.metrics["selfplay/league_consulted"] = 1.0
        return tasks

    def _past_solver(self, e: Engine, w: IterationWrite, fresh: list[Task]) -> dict[str, Task]:
        """The oldest kept checkpoint answers the iteration's new tasks (spade.selfplay.past_solver); its solve
        rates are their difficulty estimates, and each task answered is used (stored, observed, rewarded) at its
        calibrated difficulty from then on: the tasks changed, by id, with w.tasks updated in place. Both figures
        are recorded in the audit. Its answers train nothing and are not stored."""
        from spade.rollout.attempt import attempt

        path = past_checkpoint(e.checkpoints, e.store.run_dir, e.checkpoint)
        why = "no earlier checkpoint is kept" if path is None else can_swap(e.policy)
        if path is None or why is not None:
            w.audit.append(AuditEntry("past_solver", f"iteration-{w.iteration}", e.policy.name, "",
                                      f"skipped: {why}"))
            return {}
        past = str(path.relative_to(e.store.run_dir))
        started = stamp()
        try:
            with past_weights(e.policy, path):
                rollouts = attempt(e.policy, e.grader, fresh, n=self.cfg.selfplay.past_solver_samples,
                                   temperature=self.temperature(), iteration=w.iteration, progress=e.progress,
                                   seed=seeded(self.cfg.run.seed, w.iteration, "selfplay-past-solver"),
                                   timed=lambda _stage, _started: None)
        except (ModelError, TrainingError, OSError) as exc:  # e.g. an adapter of another rank, a file gone
            w.audit.append(AuditEntry("past_solver", past, e.policy.name, "", f"skipped: {str(exc)[:300]}"))
            return {}
        e.timed("past_solver", started)
        got: dict[str, list[float]] = defaultdict(list)
        for r in rollouts:
            got[r.task_id].append(float(r.passed))
        self.past_rates = {t: sum(v) / len(v) for t, v in got.items()}
        by_id = {t.task_id: t for t in fresh}
        used: dict[str, Task] = {}
        for task_id, rate in self.past_rates.items():
            task = by_id[task_id]
            level = calibrated(task.difficulty, rate, len(got[task_id]), self.cfg.selfplay.past_solver_prior)
            used[task_id] = replace(task, difficulty=level,
                                    provenance={**task.provenance, "claimed_difficulty": task.difficulty,
                                                "past_solve_rate": round(rate, 4), "past_solver": past})
            w.audit.append(AuditEntry("past_solver", task_id, past, "",
                                      f"past solve rate {rate:.2f} ({len(got[task_id])} answers): "
                                      f"difficulty estimate {1 - rate:.2f}; claimed {task.difficulty:.2f}, "
                                      f"used {level:.2f}"))
        w.tasks[:] = [replace(t, task=used[t.task.task_id]) if t.task.task_id in used else t for t in w.tasks]
        w.metrics["selfplay/past_solver_pass_rate"] = sum(self.past_rates.values()) / len(self.past_rates)
        w.metrics["selfplay/past_solver_calibration_shift"] = sum(
            used[t].difficulty - by_id[t].difficulty for t in used) / len(used)
        return used

    def _propose(self, e: Engine, w: IterationWrite, count: int, slots: int) -> list[Task]:
        """`count` proposer prompts sampled once each and judged (spade.selfplay.judging); the admitted ones are
        the iteration's tasks like any other (with selfplay.overflow false, at most `slots` of them)."""
        sp = self.cfg.selfplay
        rng = random.Random(seeded(self.cfg.run.seed, w.iteration, "selfplay-modes"))
        initial = self.cfg.evolution.initial_difficulty
        prompts = proposer_prompts([f"proposer-{w.iteration}-{k}" for k in range(count)], rng, self.mix.mode_weights,
                                   lambda mode: level_of(e.controller, mode, initial),
                                   recent_examples(e.store, retire=sp.retire_copied),
                                   learnable=learnable_examples(e.store, sp.learnable_examples, sp.retire_copied),
                                   learnable_share=sp.learnable_examples)
        copy = self._generator_copy(e, w)
        self.proposing = self.generator.checkpoint if copy is not None and self.generator else e.checkpoint
        if copy is not None and sp.generator_learner:
            self.proposing = str(copy.relative_to(e.store.run_dir))
        groups = [(prompts, copy, self.proposing, "selfplay-propose")]
        past = self._past_proposer(e, w) if league_due(w.iteration, sp, self.boost_left > 0) else None
        if past is not None:  # a past checkpoint answers its share of the prompts, with its adapter loaded
            k = round(len(prompts) * sp.past_proposer_share)
            groups = [(prompts[:k], past, str(past.relative_to(e.store.run_dir)), "selfplay-propose-past"),
                      (prompts[k:], copy, self.proposing, "selfplay-propose")]
        e.progress("propose", 0, count)
        self.pending = []
        for group, weights, checkpoint, salt in groups:
            if not group:
                continue
            started = stamp()
            with past_weights(e.policy, weights) if weights is not None else nullcontext():
                samples = e.policy.sample(group, 1, temperature=sp.proposer_temperature,
                                          seed=seeded(self.cfg.run.seed, w.iteration, salt))
            e.timed("propose", started)
            # An OpenAI backend's text is unbounded: judged() cuts it before anything reads it.
            entries = [judged(f"p{w.iteration}-{len(self.pending) + k}", prompt, answers[0].text if answers else "",
                              True, by=checkpoint) for k, (prompt, answers) in enumerate(zip(group, samples))]
            started = stamp()
            w.rejections.extend(judge(entries, e.pool, self.cfg.generation, iteration=w.iteration,
                                      checkpoint=checkpoint, model=e.policy.name, screen=e.screen,
                                      complete=sp.complete_inputs))
            e.timed("validate_proposals", started)
            self.pending.extend(entries)
        e.progress("propose", count, count)
        if past is not None:
            self._count("past_proposals", sum(p.by != self.proposing for p in self.pending))
        w.rejections.extend(admit(self.pending, self.recent, e.dedup))
        if not sp.overflow:
            surplus = bound_admitted(self.pending, slots)
            w.metrics["selfplay/surplus_proposals"] = float(surplus)
            self._count("surplus_proposals", surplus)
        admitted = [p.task for p in self.pending if p.admitted and p.task is not None]
        for task in admitted:
            e.dedup.add(task)
            w.tasks.append(IterationTask(task, "generated"))
            w.audit.append(AuditEntry("task", task.task_id, f"proposer:{task.family}", "", "accepted"))
        return admitted

    def _past_proposer(self, e: Engine, w: IterationWrite) -> Path | None:
        """The checkpoint that proposes beside the current weights in a league iteration: the oldest kept one other
        than the policy's (as the past solver), when selfplay.past_proposer_share > 0 and the policy can swap."""
        if self.cfg.selfplay.past_proposer_share <= 0:
            return None
        path = past_checkpoint(e.checkpoints, e.store.run_dir, e.checkpoint)
        why = "no earlier checkpoint is kept" if path is None else can_swap(e.policy)
        if path is None or why is not None:
            w.audit.append(AuditEntry("past_proposer", f"iteration-{w.iteration}", e.policy.name, "",
                                      f"skipped: {why}"))
            return None
        w.audit.append(AuditEntry("past_proposer", str(path.relative_to(e.store.run_dir)), e.policy.name, "",
                                  f"proposes {self.cfg.selfplay.past_proposer_share:.0%} of the prompts"))
        return path

    def _generator_copy(self, e: Engine, w: IterationWrite) -> Path | None:
        """The frozen copy's weights the proposer samples with, taken (again) when due; None: the policy's own
        weights propose (generator_refresh 0, no checkpoint yet, or a policy that cannot swap adapters)."""
        from spade.selfplay.learner import generator_weights
        from spade.store.views import update_count

        if self.cfg.selfplay.generator_learner:
            why = can_swap(e.policy)
            if why is not None:
                w.audit.append(AuditEntry("generator", f"iteration-{w.iteration}", e.policy.name, "",
                                          f"skipped: {why}; the policy proposes with its own weights"))
                return None
            return generator_weights(e.store.run_dir, e.checkpoints)
        every = self.cfg.selfplay.generator_refresh
        if every == 0:
            return None
        why = can_swap(e.policy)
        if why is not None:
            w.audit.append(AuditEntry("generator", f"iteration-{w.iteration}", e.policy.name, "",
                                      f"skipped: {why}; the policy proposes with its own weights"))
            return None
        run_dir, updates = e.store.run_dir, update_count(e.store)
        path = run_dir / COPY_DIR
        if e.checkpoint is not None and (refresh_due(self.generator, updates, every) or not path.is_dir()):
            self.generator = take_copy(run_dir, e.checkpoint, updates)
            w.audit.append(AuditEntry("generator_refresh", e.checkpoint, e.policy.name, "",
                                      f"the proposing copy now holds {e.checkpoint} ({updates} solver updates)"))
        if self.generator is None:
            return None
        w.metrics["selfplay/generator_age"] = float(updates - self.generator.updates)
        return path

    # -- after the solver's rollouts ---------------------------------------------------------------------
    def after_attempt(self, e: Engine, w: IterationWrite, rollouts: list[Rollout]) -> None:
        """Rewards for the proposals, the mix steered, collapse checked, the proposer trained when due."""
        rates: dict[str, list[float]] = defaultdict(list)
        texts: dict[str, list[str]] = defaultdict(list)
        unsteady: set[str] = set()
        for r in rollouts:
            rates[r.task_id].append(float(r.passed))
            texts[r.task_id].append(r.candidate.completion)
            if NONDETERMINISTIC_JUDGE in r.result.events:
                unsteady.add(r.task_id)
        self._blame(w, unsteady)
        self._reward(e, w, rates)
        self._observe(w, rates)
        self._against_past(w, rates)
        self.mix = steer(self.mix, self.cfg.selfplay, self.cfg.generation.kinds)
        self._collapse(e, w, texts)
        self._train_proposer_when_due(e, w)
        for mode, weight in self.mix.mode_weights.items():
            w.metrics[f"selfplay/mode_weight/{mode}"] = weight
        for kind, weight in self.mix.kind_weights.items():
            w.metrics[f"selfplay/kind_weight/{kind}"] = weight
        w.metrics["selfplay/proposer_share"] = self.mix.proposer_share
        w.metrics["selfplay/league_tasks"] = float(len(self.league_ids))
        w.metrics["selfplay/league_uses_total"] = self.counters.get("league_tasks", 0.0)

    def _blame(self, w: IterationWrite, unsteady: set[str]) -> None:
        """A proposal whose f gave two answers to one solver's input when the judge ran it twice (event
        task_nondeterministic) is the proposal's fault: invalid (reason judge_nondeterministic), paid the invalid
        penalty, never learnability; the solver got no credit on it (spade.kinds.code_reasoning.judge)."""
        for p in self.pending:
            if p.admitted and p.task_id in unsteady:
                w.audit.append(AuditEntry("proposal", p.task_id or p.proposal_id, p.by or "base", "",
                                          "invalid: f disagreed with itself on a solver's input"))
                p.valid, p.reason = False, "judge_nondeterministic"

    def _reward(self, e: Engine, w: IterationWrite, rates: dict[str, list[float]]) -> None:
        sp = self.cfg.selfplay
        learns: list[float] = []
        for p in self.pending:
            got = rates.get(p.task_id or "", [])
            record = p.record(w.iteration, p.by, e.policy.name, sp, sum(got) / len(got) if got else None)
            if p.admitted:
                learns.append(record.learnability)
            w.proposals.append(record)
        n = len(self.pending)
        if not n:
            return
        valid = [p for p in self.pending if p.valid]
        admitted = [p for p in valid if p.admitted]
        duplicates = [p for p in valid if p.duplicate]
        w.metrics["selfplay/proposals"] = float(n)
        w.metrics["selfplay/proposer_validity"] = len(valid) / n
        w.metrics["selfplay/distinct_per_100"] = 100.0 * len({p.task_id for p in admitted}) / n
        w.metrics["selfplay/near_duplicate_rate"] = len(duplicates) / len(valid) if valid else 0.0
        if sp.complete_inputs:
            w.metrics["selfplay/inputs_completed_share"] = (sum(p.inputs_added > 0 for p in valid) / len(valid)
                                                            if valid else 0.0)
        if learns:
            w.metrics["selfplay/mean_learnability"] = sum(learns) / len(learns)
        w.metrics["selfplay/mean_proposer_reward"] = sum(r.reward for r in w.proposals) / len(w.proposals)
        self._count("proposals", n)
        self._count("valid_proposals", len(valid))

    def _against_past(self, w: IterationWrite, rates: dict[str, list[float]]) -> None:
        """The current solver's solve rate minus the past solver's, over the new tasks both answered."""
        both = [(sum(rates[t]) / len(rates[t]), past) for t, past in self.past_rates.items() if rates.get(t)]
        if both:
            w.metrics["selfplay/solver_minus_past"] = sum(now - past for now, past in both) / len(both)

    def _observe(self, w: IterationWrite, rates: dict[str, list[float]]) -> None:
        proposed = {p.task_id for p in self.pending if p.admitted}
        passes: dict[str, list[float]] = defaultdict(list)
        for task in w.all_tasks:
            got = rates.get(task.task_id)
            if not got:
                continue
            source = PROPOSER if task.task_id in proposed else LEAGUE if task.task_id in self.league_ids else PROCEDURAL
            self.mix.observe_task(source, task, sum(got) / len(got))
            passes[f"source/{source}"].extend(got)
            if task.kind == "code_reasoning":
                passes[f"mode/{mode_of(task)}"].extend(got)
        for key, got in passes.items():
            w.metrics[f"selfplay/pass_rate/{key}"] = sum(got) / len(got)

    def _collapse(self, e: Engine, w: IterationWrite, texts: dict[str, list[str]]) -> None:
        """Diversity of the solver's samples; below collapse_distinct the response starts: temperature raised
        and the league consulted for collapse_iterations iterations, the decision recorded."""
        sp = self.cfg.selfplay
        w.metrics["selfplay/temperature"] = self.temperature()  # the one this iteration sampled at
        if self.boost_left > 0:
            self.boost_left -= 1
        d = diversity(texts)
        w.metrics["selfplay/distinct_completions"] = d.distinct
        w.metrics["selfplay/completion_near_duplicate_rate"] = d.near_duplicate_rate
        if d.tasks == 0 or d.distinct >= sp.collapse_distinct:
            return
        before = self.temperature()
        self.boost_left = sp.collapse_iterations
        self._count("collapses", 1)
        w.metrics["selfplay/collapse"] = 1.0
        w.audit.append(AuditEntry(
            "collapse", f"iteration-{w.iteration}", e.policy.name, "",
            f"distinct completions {d.distinct:.2f} < {sp.collapse_distinct} (near-duplicate pairs "
            f"{d.near_duplicate_rate:.2f}): temperature {before:.2f} -> {self.temperature():.2f} and the league "
            f"consulted for the next {sp.collapse_iterations} iterations"))

    def _train_proposer_when_due(self, e: Engine, w: IterationWrite) -> None:
        """The proposer role trained once per proposer_period solver updates (before the solver's update of the same
        iteration) on proposals made since its last update, as the run's trainer takes them
        (spade.selfplay.proposer_update): RFT on those whose reward beats proposer_min_reward (near-duplicates once;
        fewer than proposer_min_examples wait for the next due update), DPO on pairs answered to one prompt, GRPO
        as an advantage-weighted step with per-mode baselines."""
        from spade.store.views import update_count

        t, sp = self.cfg.training, self.cfg.selfplay
        solver_updates_now = e.trainer is not None and w.iteration % t.update_every == t.update_every - 1
        if not solver_updates_now or (update_count(e.store) + 1) % sp.proposer_period != 0:
            return
        method = t.update_method
        if method == "rft" or sp.generator_learner:  # the generator learns by RFT, whatever trains the solver
            rows = stored.proposer_examples(e.store, self.last_proposer_iteration, sp.proposer_min_reward,
                                            sp.proposer_examples)
            rows += [(p.prompt, p.completion, p.reward) for p in w.proposals if p.reward > sp.proposer_min_reward]
            rows, wait = proposer_batch(sp, rows)
            if wait:  # too few to learn from without parroting them: they accumulate to the next due update
                w.audit.append(AuditEntry("proposer_update", f"iteration-{w.iteration}", e.policy.name, "", wait))
                w.metrics["selfplay/proposer_update_waiting"] = float(len(rows))
                return
        else:
            rows = stored.proposer_rewards(e.store, self.last_proposer_iteration, 4 * sp.proposer_examples)
            rows += [(p.prompt, p.completion, p.reward) for p in w.proposals]
        self.last_proposer_iteration = w.iteration
        if sp.generator_learner:
            self._train_generator(e, w, rows)
            return
        try:
            done = self._proposer_step(e, w, method, rows)
        except TrainingError as exc:  # e.g. every proposer prompt fills training.max_seq_len
            done = f"skipped: {str(exc)[:300]}"
        if done.startswith("skipped"):
            w.audit.append(AuditEntry("proposer_update", f"iteration-{w.iteration}", e.policy.name, "", done))
            w.metrics["selfplay/proposer_update_skipped"] = 1.0
            return
        self._count("proposer_updates", 1)
        # The weights changed: saved now, so every later proposal names weights that exist even when the solver's
        # update skips (its checkpoint, of the same step, replaces this one and holds both updates).
        from spade.train.checkpoint import save_checkpoint

        assert e.trainer is not None
        path = save_checkpoint(e.checkpoints, w.iteration + 1, e.policy, e.trainer,
                               extra={"iteration": w.iteration, "proposer_update": True})
        e.checkpoint = str(path.relative_to(e.store.run_dir))
        w.metrics["selfplay/proposer_updates_total"] = self.counters["proposer_updates"]
        w.audit.append(AuditEntry("proposer_update", e.checkpoint, e.policy.name, "", done))

    def _train_generator(self, e: Engine, w: IterationWrite, rows: list[tuple[str, str, float]]) -> None:
        """Two learners (spade.selfplay.learner): RFT of the generator's own adapter, swapped in, with its own
        optimizer, on the proposals above proposer_min_reward; saved as the generator's checkpoint. The solver's
        weights and checkpoint are untouched."""
        from spade.selfplay.learner import generator_weights, open_learner, save_learner
        from spade.train.rft import RftTrainer, TrainExample

        run_dir = e.store.run_dir
        start = generator_weights(run_dir, e.checkpoints)
        why = ("no proposal above proposer_min_reward" if not rows else "no checkpoint is kept to start the "
               "generator from" if start is None else can_swap(e.policy))
        if why is not None or e.trainer is None or start is None:
            w.audit.append(AuditEntry("proposer_update", f"iteration-{w.iteration}", e.policy.name, "",
                                      f"skipped: {why or 'nothing trains here'}"))
            w.metrics["selfplay/proposer_update_skipped"] = 1.0
            return
        e.trainer.prepare()  # the adapter exists and trains: the generator's optimizer holds its tensors
        if self.learner is None:
            self.learner = open_learner(e.policy, self.cfg.training.lr, run_dir)
        step = RftTrainer(e.policy, self.cfg.training, seed=self.cfg.run.seed)
        step.optimizer = self.learner.optimizer
        try:
            with past_weights(e.policy, start):
                stats = step.train_on([TrainExample(prompt_task(p), c) for p, c, _ in rows],
                                      seed=seeded(self.cfg.run.seed, w.iteration, "selfplay-generator"))
                self.learner.updates += 1
                saved = save_learner(run_dir, e.policy, self.learner, w.iteration)
        except TrainingError as exc:
            w.audit.append(AuditEntry("proposer_update", f"iteration-{w.iteration}", e.policy.name, "",
                                      f"skipped: {str(exc)[:300]}"))
            w.metrics["selfplay/proposer_update_skipped"] = 1.0
            return
        self._count("proposer_updates", 1)
        w.metrics["selfplay/proposer_update_examples"] = float(stats.examples)
        w.metrics["selfplay/proposer_update_loss"] = float(stats.loss_last)
        w.metrics["selfplay/proposer_updates_total"] = self.counters["proposer_updates"]
        w.audit.append(AuditEntry("proposer_update", str(saved.relative_to(run_dir)), e.policy.name, "",
                                  f"generator RFT on {stats.examples} proposals (its own adapter, started from "
                                  f"{start.relative_to(run_dir)}), loss {stats.loss_first:.3f} -> "
                                  f"{stats.loss_last:.3f}"))

    def _proposer_step(self, e: Engine, w: IterationWrite, method: str, rows: list[tuple[str, str, float]]) -> str:
        """One update of the proposer role with the run's trainer; what it did ('skipped: why' when it did not)."""
        from spade.selfplay.proposer_update import advantages, preference_rows
        from spade.train.dpo import PreferencePair
        from spade.train.rft import RftTrainer, TrainExample

        seed = seeded(self.cfg.run.seed, w.iteration, "selfplay-proposer")
        limit, trainer = self.cfg.selfplay.proposer_examples, e.trainer
        if method == "rft" and getattr(trainer, "train_on", None) is not None:
            if not rows:
                return "skipped: no proposal above proposer_min_reward"
            stats = trainer.train_on([TrainExample(prompt_task(p), c) for p, c, _ in rows], seed=seed)
            what = f"RFT on {stats.examples} proposals (reward {rows[-1][2]:.2f}..{rows[0][2]:.2f})"
        elif method == "dpo" and getattr(trainer, "train_on", None) is not None:
            pairs = preference_rows(rows, lambda p: e.policy.prompt_text(prompt_task(p), 0), limit)
            if not pairs:
                return "skipped: no two proposals answered one prompt with different rewards"
            stats = trainer.train_on([PreferencePair(prompt_task(p), chosen, rejected)
                                      for p, chosen, rejected in pairs], seed=seed)
            what = f"DPO on {stats.examples} pairs of proposals answered to one prompt"
        elif method == "grpo" and trainer is not None:
            weighted = advantages(rows, limit)
            if not weighted:
                return "skipped: no proposal's reward differs from its mode's mean"
            trainer.prepare()
            step = RftTrainer(e.policy, self.cfg.training, seed=self.cfg.run.seed)
            step.optimizer = trainer.optimizer  # the policy's one AdamW: the role's step moves the same adapter
            stats = step.train_on([TrainExample(prompt_task(p), c, weight=a) for p, c, a in weighted], seed=seed)
            what = (f"advantage-weighted step on {stats.examples} proposals (per-mode baselines, advantages "
                    f"{min(a for *_, a in weighted):.2f}..{max(a for *_, a in weighted):.2f})")
        else:
            return f"skipped: the proposer role has no update under update_method {method!r}"
        w.metrics["selfplay/proposer_update_examples"] = float(stats.examples)
        w.metrics["selfplay/proposer_update_loss"] = float(stats.loss_last)
        return f"{what}, loss {stats.loss_first:.3f} -> {stats.loss_last:.3f}"

    def _count(self, name: str, n: float) -> None:
        self.counters[name] = self.counters.get(name, 0.0) + n


__all__ = ["SelfPlay"]
