"""Task supply: fresh validated, deduplicated tasks at the controller's difficulties, plus the replay share.

In: the config, the run store (replay history), the controller (difficulty per family and the family mix), the
dedup index, the sandbox pool, and the procedural families or the LLM proposer. Out: each iteration's tasks; every
accepted task, rejection and audit line is added to the iteration's `IterationWrite`. A procedural draft that
validates but duplicates a known task comes back next attempt composed with another family's step
(spade.generate.compose), held to the same rule as `spade variants` (spade.validate.effect).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from spade.config import SpadeConfig
from spade.curriculum import EXTERNAL, Controller, choose_replay
from spade.errors import ConfigError
from spade.generate.procedural import draft_task
from spade.generate.registry import family_for_run, get_family
from spade.records import PYTHON_FUNCTION, AuditEntry, Rejection, Task, TaskDraft
from spade.seeding import seeded
from spade.store import IterationTask, IterationWrite, RunStore

if TYPE_CHECKING:
    from spade.dedup import DedupIndex
    from spade.dedup.behaviour import ContaminationScreen
    from spade.generate.proposer import LLMProposer, ProposalBatch
    from spade.sandbox import SandboxPool
    from spade.validate.outcome import ValidationOutcome

Progress = Callable[[str, int, int], None]  # (stage, done, total)

COMPOSE_TRIES = 3  # transforms tried per task composed by generation.compose_share (1 in 4 single tries passed)


@dataclass
class TaskSupply:
    """Draws each iteration's tasks. `families` are the controller's families (['external'] with the proposer)."""

    cfg: SpadeConfig
    store: RunStore
    pool: SandboxPool
    controller: Controller
    dedup: DedupIndex
    families: list[str]
    proposer: LLMProposer | None = None
    progress: Progress = field(default=lambda stage, done, total: None)
    screen: ContaminationScreen | None = None  # contamination by behaviour (spade.dedup.behaviour)

    def draw(self, w: IterationWrite) -> list[Task]:
        """The iteration's tasks: fresh ones first, then the replayed ones (with generation.fixed_tasks, the fixed
        set's next ones instead)."""
        gen = self.cfg.generation
        if gen.fixed_tasks:
            return self._fixed(w)
        rng = random.Random(seeded(self.cfg.run.seed, w.iteration, "plan"))
        history = self.store.task_pass_history()
        n_replay = min(round(gen.tasks_per_iteration * self.cfg.evolution.replay_ratio), len(history))
        replay_ids = choose_replay(history, n_replay, rng, exclude=set())
        accepted = self._fresh(w, gen.tasks_per_iteration - len(replay_ids), rng)
        replayed = [self.store.task(t) for t in replay_ids]
        w.tasks.extend(IterationTask(t, "replay") for t in replayed)
        return accepted + replayed

    def _fixed(self, w: IterationWrite) -> list[Task]:
        """A static dataset (generation.fixed_tasks): the set in one seeded order per pass, iteration k taking the
        next tasks_per_iteration of it (a pass done, the next pass's order follows); a task's first draw is stored
        as generated, later ones as replays."""
        from spade.taskio import load_tasks

        gen = self.cfg.generation
        tasks = sorted(load_tasks(gen.fixed_tasks), key=lambda t: t.task_id)
        if not tasks:
            raise ConfigError(f"generation.fixed_tasks = {gen.fixed_tasks!r} holds no task; give a file of tasks")
        n, want = len(tasks), min(gen.tasks_per_iteration, len(tasks))
        orders: dict[int, list[int]] = {}
        drawn: list[Task] = []
        ids: set[str] = set()
        k = w.iteration * gen.tasks_per_iteration
        while len(drawn) < want:  # a pass ending inside the iteration: its next pass skips what it already drew
            if k // n not in orders:
                orders[k // n] = list(range(n))
                random.Random(seeded(self.cfg.run.seed, k // n, "fixed-pass")).shuffle(orders[k // n])
            task = tasks[orders[k // n][k % n]]
            if task.task_id not in ids:
                drawn.append(task)
                ids.add(task.task_id)
            k += 1
        known = {str(t) for (t,) in self.store.query("SELECT task_id FROM tasks")}
        for task in drawn:
            if task.task_id in known:
                w.tasks.append(IterationTask(task, "replay"))
            else:
                w.tasks.append(IterationTask(task, "generated"))
                w.audit.append(AuditEntry("task", task.task_id, f"fixed:{task.family}", "", "accepted"))
        return drawn

    def _fresh(self, w: IterationWrite, wanted: int, rng: random.Random) -> list[Task]:
        gen = self.cfg.generation
        accepted: list[Task] = []
        duplicates: list[Task] = []  # validated procedural tasks that were duplicates: composed next attempt
        for attempt in range(gen.max_attempts):
            need = wanted - len(accepted)
            if need <= 0:
                break
            first_index = (w.iteration * gen.max_attempts + attempt) * 1000
            self.progress("generate", len(accepted), wanted)
            if self.proposer is not None:
                batch = self._propose(w, need, first_index)
                outcomes = self._validate(batch.drafts, {})
                record_proposals(w, batch, outcomes)
                self._take(w, batch.drafts, outcomes, {}, accepted, None)
            else:
                seeds = duplicates[:need]
                drafts = self._composed_retries(seeds, first_index)
                family_of = {d.task_id: t.family for d, t in zip(drafts, seeds)}
                duplicates = []
                users, user_seeds = self._from_seed_file(need - len(drafts), first_index + 700, w.iteration, attempt)
                plain = self._procedural(need - len(drafts) - len(users), first_index + len(drafts), rng)
                marked = self._marked_to_compose(plain, w.iteration, attempt)
                outcomes = self._validate(drafts + plain + users, {**{t.task_id: t for t in seeds}, **user_seeds})
                held: list[Task] = []
                self._take(w, drafts + plain + users, outcomes, family_of, accepted, duplicates, marked, held)
                if held:
                    self._compose_held(w, held, first_index + 500, accepted)
        self.progress("generate", len(accepted), wanted)
        return accepted

    def _procedural(self, count: int, first_index: int, rng: random.Random) -> list[TaskDraft]:
        """Drafts from families drawn by the controller's weights, each at its family's difficulty; with a mix of
        kinds (generation.kinds), a kind is drawn by its weight first, then a family of it."""
        gen = self.cfg.generation
        weights = self.controller.family_weights()
        names = sorted(self.families)
        mix = self._kind_mix(names)
        drafts = []
        for slot in range(count):
            among = names if mix is None else mix[rng.choices(sorted(mix), [gen.kinds[k] for k in sorted(mix)])[0]]
            family = rng.choices(among, weights=[weights.get(n, 1.0) for n in among])[0]
            drafts.append(draft_task(family_for_run(family, gen.withhold_families), self.controller.difficulty(family),
                                     self.cfg.run.seed, first_index + slot, gen.public_tests, gen.hidden_tests))
        return drafts

    def _from_seed_file(self, room: int, first_index: int, iteration: int,
                        attempt: int) -> tuple[list[TaskDraft], dict[str, Task]]:
        """With generation.seeds: variant drafts of the user's seed tasks for generation.seed_share of the `room`
        fresh slots, and the seeds by id (a composed variant must change its seed's answer). Drawn apart from the
        plan, so a run without seeds draws as before."""
        from spade.generate.seeds import load_seeds, seed_drafts

        gen = self.cfg.generation
        if not gen.seeds or room <= 0:
            return [], {}
        count = min(room, round(room * gen.seed_share))
        seeds = load_seeds(gen.seeds)
        rng = random.Random(seeded(self.cfg.run.seed, iteration, f"seeds|{attempt}"))
        drafts = seed_drafts(seeds, count, rng, self.cfg.run.seed, first_index, gen.public_tests, gen.hidden_tests,
                             gen.compose_share, gen.withhold_families)
        return drafts, {t.task_id: t for t in seeds}

    def _kind_mix(self, names: list[str]) -> dict[str, list[str]] | None:
        """Families per weighted kind, when families were not named and more than one kind is weighted (with one
        kind the draws are exactly those of a run without a mix)."""
        gen = self.cfg.generation
        if gen.families:
            return None
        by_kind: dict[str, list[str]] = {}
        for name in names:
            kind = get_family(name).kind
            if gen.kinds.get(kind, 0) > 0:
                by_kind.setdefault(kind, []).append(name)
        return by_kind if len(by_kind) > 1 else None

    def _validate(self, drafts: list[TaskDraft], seeds: dict[str, Task]) -> list[ValidationOutcome]:
        from spade.kinds import validate_drafts
        from spade.validate.effect import require_effect

        outcomes = validate_drafts(drafts, self.pool, self.cfg.generation)
        if seeds:  # composed retries must change their seed's answer, as in `spade variants`
            outcomes = require_effect(outcomes, seeds, self.pool, self.cfg.generation)
        if self.screen is not None:  # a task that answers an evaluation task is no training task
            outcomes = self.screen.exclude(outcomes, self.pool)
        return outcomes

    def _take(self, w: IterationWrite, drafts: list[TaskDraft], outcomes: list[ValidationOutcome],
              family_of: dict[str, str | None], accepted: list[Task], duplicates: list[Task] | None,
              marked: frozenset[str] = frozenset(), held: list[Task] | None = None) -> None:
        """Accepted, non-duplicate tasks join `accepted` and the store; the rest are rejections. Duplicates of
        procedural tasks go to `duplicates` (None: not composed, as for proposed ones). Drafts in `marked` that
        pass go to `held` instead, to be composed before they are admitted (`_compose_held`)."""
        compose = self.cfg.generation.compose_on_duplicate and duplicates is not None
        for draft, outcome in zip(drafts, outcomes):
            if outcome.accepted and draft.task_id in family_of:  # validated as a variant, counted in its family
                outcome = replace(outcome, task=replace(outcome.task, family=family_of[draft.task_id]))
            if not outcome.accepted or outcome.task is None:
                w.rejections.append(Rejection(draft.task_id, draft.family, draft.difficulty, outcome.reasons[0],
                                              "; ".join(outcome.reasons)))
                continue
            if held is not None and draft.task_id in marked and not self.dedup.check(outcome.task).duplicate:
                held.append(outcome.task)
                continue
            if self._admit(w, outcome.task, accepted):
                continue
            # Composition transforms Python code: other kinds' duplicates are not composed.
            if (compose and duplicates is not None and "composed" not in outcome.task.tags
                    and outcome.task.kind == PYTHON_FUNCTION):
                duplicates.append(outcome.task)

    def _admit(self, w: IterationWrite, task: Task, accepted: list[Task]) -> bool:
        """A validated task joins `accepted`, the dedup index and the store unless it duplicates one (a rejection)."""
        verdict = self.dedup.check(task)
        if verdict.duplicate:
            w.rejections.append(Rejection(task.task_id, task.family, task.difficulty,
                                          f"duplicate_{verdict.kind}", f"duplicate of {verdict.of}"))
            return False
        self.dedup.add(task)
        accepted.append(task)
        w.tasks.append(IterationTask(task, "generated"))
        source = task.provenance.get("source", "procedural")
        w.audit.append(AuditEntry("task", task.task_id, f"{source}:{task.family}", "", "accepted"))
        return True

    def _marked_to_compose(self, drafts: list[TaskDraft], iteration: int, attempt: int) -> frozenset[str]:
        """Ids of the fresh drafts to compose from the start (generation.compose_share): Python function drafts
        that some transform fits, each with that probability; drawn apart from the plan, so share 0 changes no
        draw."""
        from spade.generate.compose import fitting

        share = self.cfg.generation.compose_share
        if share <= 0:
            return frozenset()
        rng = random.Random(seeded(self.cfg.run.seed, iteration, f"compose-share|{attempt}"))
        return frozenset(d.task_id for d in drafts
                         if rng.random() < share and d.kind == PYTHON_FUNCTION and fitting(d.signature))

    def _compose_held(self, w: IterationWrite, held: list[Task], first_index: int, accepted: list[Task]) -> None:
        """Each held plain task composed with another family's transform: COMPOSE_TRIES different transforms are
        validated and the first that passes (changes the answer, is no duplicate) is admitted; a task none of
        whose compositions passes is admitted plain."""
        tries = [(task, j) for task in held for j in range(COMPOSE_TRIES)]
        drafts = [self._composed_retries([task], first_index + COMPOSE_TRIES * k + j)[0]
                  for k, (task, j) in enumerate(tries)]
        outcomes = self._validate(drafts, {t.task_id: t for t in held})
        done: set[str] = set()
        for (task, _), draft, outcome in zip(tries, drafts, outcomes):
            if task.task_id in done:
                continue
            if not outcome.accepted or outcome.task is None:
                w.rejections.append(Rejection(draft.task_id, task.family, draft.difficulty, outcome.reasons[0],
                                              "; ".join(outcome.reasons)))
                continue
            if self._admit(w, replace(outcome.task, family=task.family), accepted):
                done.add(task.task_id)
        for task in held:
            if task.task_id not in done:
                self._admit(w, task, accepted)

    def _composed_retries(self, duplicates: list[Task], first_index: int) -> list[TaskDraft]:
        """Drafts composing each duplicate with a transform from another family. They validate as family-less
        variants; `_take` files the accepted ones under the duplicate's family, so the controller measures them
        there (at their own, higher, claimed difficulty)."""
        from spade.generate.variants import seed_variant

        gen = self.cfg.generation
        # Index >= 1: a seed's variant 0 is never composed. Distinct per iteration and attempt.
        return [seed_variant(task, self.cfg.run.seed, 1 + first_index + k, gen.public_tests, gen.hidden_tests,
                             compose=True, withhold=gen.withhold_families) for k, task in enumerate(duplicates)]

    def _propose(self, w: IterationWrite, count: int, first_index: int) -> ProposalBatch:
        """LLM-proposed drafts at the difficulty of the 'external' family, shown recent tasks from the store."""
        assert self.proposer is not None
        examples = [t for t in self.store.tasks() if t.reference_solution][-50:]
        return self.proposer.propose(count, self.controller.difficulty(EXTERNAL), examples,
                                     seed=seeded(self.cfg.run.seed, w.iteration, "propose"), start_index=first_index)


def record_proposals(w: IterationWrite, batch: Any, outcomes: list[Any]) -> None:
    """Parse-stage rejections are data too: counted by reason and kept in the metrics
    (docs/method.md#generator-health)."""
    from spade.generate.proposer import cross_check

    stats = cross_check(batch, outcomes)
    for reason, n in stats.rejected.items():
        for k in range(n):
            w.rejections.append(Rejection(f"llm-{w.iteration}-{len(w.rejections)}-{k}", None, None, reason, "proposer"))
    # One round per generation attempt: counts add up over the iteration, rates are the last round's.
    for name, value in stats.metrics().items():
        counted = name.endswith(("requested", "drafted", "accepted"))
        w.metrics[name] = w.metrics.get(name, 0.0) + value if counted else value
    w.metrics["generator_parse_failure_rate"] = stats.parse_failure_rate
