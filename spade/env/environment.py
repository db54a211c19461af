"""SPADE as an environment an outside trainer drives: draw tasks, grade answers, report them.

In: a run directory (made here, or by `spade run`). Out: tasks drawn at the controller's current difficulties (with
the replay share), graded answers, and per report one committed iteration: rollouts, the controller's observations
and decisions, metrics and audit rows, exactly the records `spade run` writes, so `spade status/report/doctor` and
`spade run --resume` read an environment's run like a loop's.
Every piece of state lives in the run's SQLite database; each draw and each report is one transaction, so threads
and processes (a trainer's reward workers) may share a run, and a crash loses at most the calls in flight. Drawn
tasks are stored at once (under the iteration still open), so any process can grade them by id.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spade.config import SpadeConfig
from spade.curriculum import EXTERNAL
from spade.env.grading import Answer, Graded, grade
from spade.errors import ConfigError, ValidationError
from spade.records import AuditEntry, Candidate, Decision, Rejection, Rollout, Task
from spade.store import IterationTask, IterationWrite, Origin, RunState, RunStore, TaskUse
from spade.untrusted import over

if TYPE_CHECKING:
    from spade.env.proposer import ProposalVerdict, ProposerPrompt

RUN_DIR_KEY = "spade_run_dir"  # a row's extra_info key naming its live run (spade.env.verl writes, reward_fn reads)
MAX_PROPOSALS = 256  # completions one submit_proposals call judges (each is parsed, run twice and deduplicated)
MAX_KEY_BYTES = 256  # a report's idempotency key as stored; a longer one is stored as its sha256
DRAW_SEED_BASE = 1 << 40  # draws seed and index their drafts far from the loop's iterations, so neither repeats the other


@dataclass(frozen=True, slots=True)
class Drawn:
    """A task handed to the trainer: the task, why it was drawn (generated | replay) and the iteration it opened in."""

    task: Task
    origin: Origin
    iteration: int

    def messages(self, variant: int = 0) -> list[dict[str, str]]:
        """The chat prompt SPADE's own loop would show (public tests only)."""
        from spade.policy.prompts import build_prompt

        return [dict(m) for m in build_prompt(self.task, variant).messages]

    def shown(self) -> dict[str, Any]:
        """The task as a trainer may show it: its text and the public tests as its kind's prompt shows them
        (spade.kinds.shown_tests); never a hidden test, the reference, or an expected value that is the answer."""
        from spade.kinds import shown_tests

        t = self.task
        return {"task_id": t.task_id, "kind": t.kind, "family": t.family, "difficulty": t.difficulty,
                "description": t.description, "signature": t.signature, "entry_point": t.entry_point,
                "test_cases": shown_tests(t)}

    def row(self, variant: int = 0) -> dict[str, Any]:
        """A dataset row for TRL (and the GRPO export): conversational `prompt`, `task_id`, `ground_truth`."""
        from spade.groundtruth import ground_truth

        return {"prompt": self.messages(variant), "task_id": self.task.task_id, "ground_truth": ground_truth(self.task)}


@dataclass(frozen=True, slots=True)
class Report:
    """What one report committed: its iteration, the controller's decisions, and the iteration's metrics."""

    iteration: int
    decisions: tuple[Decision, ...]
    metrics: dict[str, float]
    committed: bool = True  # False: the key was reported before; nothing was counted twice


@dataclass
class _Local:
    """Per process and thread: an SQLite connection (connections are not shared across threads or forks)."""

    pid: int = -1
    store: RunStore | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class Environment:
    """An open SPADE environment on one run directory. Thread-safe and usable from several processes at once;
    pickles as its run directory (a worker that unpickles it reopens the run)."""

    def __init__(self, run_dir: str | Path, config: SpadeConfig | None = None) -> None:
        from spade.rundir.layout import CONFIG_NAME, create_run, open_run
        from spade.store import DB_NAME

        self.run_dir = Path(run_dir)
        if (self.run_dir / DB_NAME).is_file():
            store, self.config = open_run(self.run_dir)
            store.close()
            if config is not None and config != self.config:
                raise ConfigError(f"{self.run_dir} already holds a run with its own {CONFIG_NAME}; open it without a "
                                  "config, or give a new run directory for this config")
        else:
            self.config = config or SpadeConfig()
            create_run(self.run_dir, self.config).close()
        self._lock = threading.Lock()  # guards the per-process state below (held briefly)
        self._draw_lock = threading.Lock()  # one draw at a time per process: draws share the dedup index
        self._local = threading.local()
        self._pid = -1
        self._pool: Any = None
        self._dedup: Any = None
        self._dedup_rowid = 0
        self._screen: Any = None
        self._tasks: dict[str, Task] = {}

    @classmethod
    def open(cls, run_dir: str | Path, config: SpadeConfig | None = None) -> Environment:
        """Open the environment on `run_dir`, creating the run (with `config`, default the defaults) if none is there."""
        return cls(run_dir, config)

    # --- pickling: a run directory, reopened on the other side ---------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        return {"run_dir": str(self.run_dir)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["run_dir"])  # type: ignore[misc]

    # --- per-process resources ---------------------------------------------------------------------------
    def _store(self) -> RunStore:
        local = self._local
        if getattr(local, "pid", None) != os.getpid() or local.store is None:
            local.pid, local.store = os.getpid(), RunStore(self.run_dir)
        return local.store

    def _process(self) -> None:
        """Start this process's sandbox pool (a forked child never uses its parent's)."""
        if self._pid != os.getpid():
            from spade.sandbox.backend import open_pool

            self._pid, self._pool, self._dedup, self._dedup_rowid = os.getpid(), open_pool(self.config.executor), None, 0
            self._tasks = {}
            atexit.register(self.close)

    def close(self) -> None:
        """Stop this process's sandbox pool and close this thread's database connection."""
        with self._lock:
            if self._pool is not None and self._pid == os.getpid():
                self._pool.close()
            self._pool, self._pid = None, -1
        store = getattr(self._local, "store", None)
        if store is not None:
            store.close()
            self._local.store = None

    def __enter__(self) -> Environment:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the controller, as last committed -----------------------------------------------------------------
    def controller(self) -> Any:
        """The co-evolution controller as the last committed iteration left it (a fresh one before any report)."""

        store = self._store()
        return _controller(self.config, store.state_after(store.last_iteration()))

    def _kinds(self, store: RunStore) -> dict[str, float]:
        """generation.kinds, as self-play's mix weights them once reports have steered it (selfplay.enabled)."""
        from spade.selfplay.mix import MixState

        kinds = self.config.generation.kinds
        if not self.config.selfplay.enabled:
            return kinds
        state = store.state_after(store.last_iteration()).selfplay or {}
        return MixState.from_dict(state.get("mix") or {}, self.config.selfplay).kinds(kinds)

    def difficulties(self) -> dict[str, float]:
        """Each family's current target difficulty."""
        return {name: s.difficulty for name, s in sorted(self.controller().families.items())}

    # --- draw ----------------------------------------------------------------------------------------------
    def draw(self, count: int | None = None) -> list[Drawn]:
        """`count` tasks (default generation.tasks_per_iteration): fresh ones validated and deduplicated at the
        controller's current difficulties, plus the replay share (evolution.replay_ratio) of earlier tasks; with
        selfplay.enabled, every selfplay.league_every-th draw gives up to selfplay.league_share of its tasks to the
        league (earlier proposals the solver's reports fail, origin "replay", an audit line each)."""
        from spade.generate.registry import resolve_families
        from spade.supply.supply import TaskSupply

        cfg = self.config
        count = cfg.generation.tasks_per_iteration if count is None else count
        if count < 1:
            raise ConfigError(f"draw count = {count}: ask for at least 1 task")
        store = self._store()
        draw_no = store.next_count("draws")
        with self._draw_lock:
            with self._lock:
                self._process()
                pool = self._pool
            self._refresh_dedup(store)
            llm = cfg.generation.proposer == "llm"
            families = [EXTERNAL] if llm else [f.name for f in resolve_families(
                cfg.generation.families, cfg.generation.kinds, cfg.generation.withhold_families)]
            w = IterationWrite(iteration=DRAW_SEED_BASE + draw_no)
            league = self._league(store, w, round(count * cfg.selfplay.league_share)) \
                if self._league_due(draw_no) else []
            gen = cfg.generation.model_copy(update={"tasks_per_iteration": count - len(league),
                                                    "kinds": self._kinds(store)})
            supply = TaskSupply(cfg.model_copy(update={"generation": gen}), store, pool, self.controller(),
                                self._dedup, families, _proposer(cfg) if llm else None, screen=self._contamination())
            if count > len(league):
                supply.draw(w)
            fresh = w.tasks_of("generated")
            iteration, stored, self._dedup_rowid = store.add_drawn(
                self._dedup_rowid, lambda newer: self._accept(fresh, newer), w.rejections, w.audit)
        with self._lock:
            self._tasks.update((t.task_id, t) for t in stored)
        back = {t.task_id for t in league}  # the replay share may pick a league task too: drawn once
        replayed = [Drawn(t, "replay", iteration) for t in league + [t for t in w.tasks_of("replay")
                                                                     if t.task_id not in back]]
        return [Drawn(t, "generated", iteration) for t in stored] + replayed

    def _league_due(self, draw_no: int) -> bool:
        """Self-play's league rule with draws for iterations (no collapse response runs here)."""
        from spade.selfplay.league import league_due

        return self.config.selfplay.enabled and league_due(draw_no, self.config.selfplay, False)

    def _league(self, store: RunStore, w: IterationWrite, count: int) -> list[Task]:
        """Up to `count` earlier proposals the solver fails in its reports, as the loop's league picks them (the
        supply fills the rest of the draw); the current weights are those named with the newest proposal
        (unnamed: every earlier proposal is past)."""
        from spade.selfplay.league import choose_league
        from spade.store.proposals import league_candidates, newest_proposer

        candidates = league_candidates(store, newest_proposer(store), 500)
        ids = choose_league(candidates, store.task_pass_history(), count, set())
        by = dict(candidates)
        w.audit.extend(AuditEntry("league", t, str(by.get(t) or "external"), "", "re-entered: the solver fails it")
                       for t in ids)
        return [store.task(t) for t in ids]

    def draw_some(self, count: int | None = None, attempts: int = 3) -> list[Drawn]:
        """`draw`, retried when a draw yields nothing (every draft rejected or a duplicate); after `attempts` empty
        draws in a row a ValidationError names where to look. For dataset streams that must not stall silently."""
        for _ in range(attempts):
            drawn = self.draw(count)
            if drawn:
                return drawn
        raise ValidationError(f"{attempts} draws in a row gave no task (every draft was rejected or a duplicate); "
                              f"see `spade status {self.run_dir}` for the rejection reasons")

    def _refresh_dedup(self, store: RunStore) -> None:
        """The dedup index as the loop builds it (reserved foreign eval suites + every stored task), kept current."""
        from spade.dedup import DedupIndex

        if self._dedup is None:
            self._dedup = DedupIndex.from_tasks(_reserved(self.config), threshold=self.config.generation.dedup_threshold)
            self._dedup_rowid = 0
        self._dedup_rowid, newer = store.tasks_after(self._dedup_rowid)
        for task in newer:
            self._dedup.add(task)

    def _contamination(self) -> Any:
        """The behaviour screen the loop applies (spade.dedup.behaviour): a drawn or proposed task whose reference
        answers a task of a foreign evaluation suite is rejected (contaminated_behaviour, counted in status)."""
        from spade.evaluate.contamination import checked_suites, contamination_screen

        if self._screen is None:
            self._screen = contamination_screen(self.run_dir, checked_suites(self.config, _eval_suites(self.config)))
        return self._screen

    def _accept(self, fresh: list[Task], newer: list[Task], late: dict[str, Any] | None = None
                ) -> tuple[list[Task], list[Rejection]]:
        """Under the write lock: drop drawn tasks that duplicate one another process stored since our index was read
        (their dedup verdicts into `late`, when given)."""
        from spade.dedup import DedupIndex

        if not newer:
            return fresh, []
        index = DedupIndex.from_tasks(newer, threshold=self.config.generation.dedup_threshold)
        keep, rejected = [], []
        for task in fresh:
            verdict = index.check(task)
            if verdict.duplicate:
                if late is not None:
                    late[task.task_id] = verdict
                rejected.append(Rejection(task.task_id, task.family, task.difficulty, f"duplicate_{verdict.kind}",
                                          f"duplicate of {verdict.of}"))
            else:
                keep.append(task)
        for task in newer:
            self._dedup.add(task)
        return keep, rejected

    # --- self-play's proposer role ------------------------------------------------------------------------
    def propose(self, count: int | None = None, mode: str | None = None) -> list[ProposerPrompt]:
        """`count` proposer prompts (default generation.tasks_per_iteration) as self-play's loop asks them: modes
        weighted as the run's mix holds them (selfplay.modes until a loop steers it), or all in `mode`; each at the
        controller's difficulty for `selfplay_<mode>`, with a recent valid proposal of the run as its example."""
        from spade.env.proposer import MODES, proposer_prompts
        from spade.seeding import seeded

        count = self.config.generation.tasks_per_iteration if count is None else count
        if count < 1:
            raise ConfigError(f"propose count = {count}: ask for at least 1 prompt")
        if mode is not None and mode not in MODES:
            raise ConfigError(f"propose mode = {mode!r}: use one of {', '.join(MODES)} (or None for the mix)")
        store = self._store()
        n = store.next_count("proposer_prompts")
        last = store.last_iteration()
        state = store.state_after(last)
        return proposer_prompts(self.config, store, _controller(self.config, state), state, last + 1,
                                seeded(self.config.run.seed, DRAW_SEED_BASE + n, "selfplay-modes"),
                                [f"proposer-e{n}-{k}" for k in range(count)], mode)

    def submit_proposals(self, prompts: Sequence[ProposerPrompt | Task | str], completions: Sequence[str], *,
                         model: str = "external", checkpoint: str | None = None, prefilled: bool = False
                         ) -> list[ProposalVerdict]:
        """Judge each completion as a proposal for its prompt (a `propose` record, or its row's `proposer_prompt`),
        as the loop judges its own: bounded, parsed, validated by execution in the sandbox, deduplicated against
        recent proposals and stored tasks. Admitted tasks are stored (any process grades them by id); every
        proposal is recorded with `model` and `checkpoint` (the proposer's weights). `prefilled`: the prompts ended
        with `def f(` (ProposerPrompt.prefill). A bad completion is a verdict, never an exception."""
        from spade.env import proposer as pr
        from spade.selfplay import judging

        cfg, sp = self.config, self.config.selfplay
        if len(completions) > MAX_PROPOSALS:
            raise ConfigError(f"submit_proposals got {len(completions)} completions, over the {MAX_PROPOSALS} one call "
                              "judges; split them into several calls")
        resolved = [pr.prompt_of(p) for p in prompts]
        if len(resolved) != len(completions):
            raise ConfigError(f"submit_proposals got {len(resolved)} prompts and {len(completions)} completions; "
                              "give one completion per prompt")
        if not resolved:
            return []
        store = self._store()
        batch = store.next_count("proposal_batches")
        entries = [judging.judged(f"e{batch}-{k}", p, c, prefilled) for k, (p, c) in enumerate(zip(resolved, completions))]
        with self._draw_lock:
            with self._lock:
                self._process()
                pool = self._pool
            self._refresh_dedup(store)
            rejections = judging.judge(entries, pool, cfg.generation, iteration=store.last_iteration() + 1,
                                       checkpoint=checkpoint, model=model, screen=self._contamination(),
                                       complete=cfg.selfplay.complete_inputs)
            rejections += judging.admit(entries, judging.recent_index(cfg, store), self._dedup)
            fresh = [e.task for e in entries if e.admitted and e.task is not None]
            audit = [AuditEntry("task", t.task_id, f"proposer:{t.family}", "", "accepted") for t in fresh]
            late: dict[str, Any] = {}

            def accept(newer: list[Task]) -> tuple[list[Task], list[Rejection]]:
                keep, more = self._accept(fresh, newer, late)
                for e in entries:
                    if e.task is not None and e.task.task_id in late:
                        judging.mark_duplicate(e, late[e.task.task_id].kind or "exact", late[e.task.task_id].similarity)
                return keep, more

            iteration, stored, self._dedup_rowid = store.add_drawn(
                self._dedup_rowid, accept, rejections, audit,
                lambda i, _: [e.record(i, checkpoint, model, sp) for e in entries])
            for task in stored:
                self._dedup.add(task)
        with self._lock:
            self._tasks.update((t.task_id, t) for t in stored)
        return pr.verdicts(entries, iteration, sp)

    # --- grade ---------------------------------------------------------------------------------------------
    def task(self, task_id: str) -> Task:
        """A stored task by id (drawn by any process)."""
        with self._lock:
            cached = self._tasks.get(task_id)
        if cached is not None:
            return cached
        task = self._store().task(task_id)
        with self._lock:
            self._tasks[task_id] = task
        return task

    def score(self, tasks: Sequence[Task | str], completions: Sequence[str], *, prefilled: bool = False,
              through: Callable[[Any], Any] | None = None) -> list[Graded]:
        """Grade each completion on its task (a `Task` or a stored task id) as `spade run` does; records nothing.
        `prefilled`: the prompts ended inside the opening code fence (SPADE's rendered text prompts do).
        `through(pool)`: a view of the environment's pool to grade through (the service's width and cancellation)."""
        resolved = [t if isinstance(t, Task) else self.task(t) for t in tasks]
        answers = [Answer(t, c, prefilled) for t, c in zip(resolved, completions, strict=True)]
        with self._lock:
            self._process()
            pool = self._pool
        return grade(pool if through is None else through(pool), self.config.reward, answers)

    # --- report --------------------------------------------------------------------------------------------
    def report(self, graded: Sequence[Graded], *, model: str = "external", variants: Sequence[int] | None = None,
               new_tokens: Sequence[int] | None = None, key: str | None = None) -> Report:
        """Commit graded answers as one iteration: the controller observes each task's successes and may move; the
        rollouts, decisions, metrics and audit rows are written as `spade run` writes them. `key` makes a retried
        report count once. An empty report commits nothing."""
        if not graded:
            return Report(iteration=self._store().last_iteration(), decisions=(), metrics={}, committed=False)
        variants = list(variants) if variants is not None else [0] * len(graded)
        new_tokens = list(new_tokens) if new_tokens is not None else [0] * len(graded)
        if key is not None and over(key, MAX_KEY_BYTES):  # stored in the run's meta table: a digest stands for it
            key = "sha256:" + hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
        store = self._store()
        started = time.time()
        w, committed = store.commit_next(
            lambda i, state: _iteration(self.config, store, i, state, graded, model, variants, new_tokens, started),
            key=key)
        if committed:
            self._after_commit(store, w)
        return Report(w.iteration, tuple(w.decisions), dict(w.metrics), committed)

    def step(self, tasks: Sequence[Task | str], completions: Sequence[str], *, prefilled: bool = False,
             model: str = "external", variants: Sequence[int] | None = None, new_tokens: Sequence[int] | None = None,
             key: str | None = None) -> tuple[list[Graded], Report]:
        """`score` then `report`: what a trainer's reward function calls once per batch."""
        graded = self.score(tasks, completions, prefilled=prefilled)
        return graded, self.report(graded, model=model, variants=variants, new_tokens=new_tokens, key=key)

    def _after_commit(self, store: RunStore, w: IterationWrite) -> None:
        """The run directory's files beside the database, as the loop keeps them (metrics.jsonl, sinks)."""
        from spade.rundir.layout import export_metrics

        with self._lock, _run_file_lock(self.run_dir):
            export_metrics(store)
            sinks = self._sinks()
            if sinks is not None:
                sinks.write(w.iteration, w.metrics)

    def _sinks(self) -> Any:
        if not (self.config.run.tensorboard or self.config.run.mlflow):
            return None
        if getattr(self, "_sink_pid", None) != os.getpid():
            from spade.rundir.sinks import MetricSinks

            self._sink, self._sink_pid = MetricSinks(self.config.run, self.run_dir), os.getpid()
        return self._sink


def _iteration(cfg: SpadeConfig, store: RunStore, iteration: int, state: RunState, graded: Sequence[Graded],
               model: str, variants: list[int], new_tokens: list[int], started: float) -> IterationWrite:
    """One report as the iteration `spade run` would have committed (under the write lock, from the last state)."""
    from spade.audit import audit_result
    from spade.env.proposer import proposal_metrics, proposal_rewards
    from spade.policy.prompts import build_prompt

    controller = _controller(cfg, state)
    seen = store.uses(sorted({g.answer.task.task_id for g in graded}))  # attempted before: this use is a replay
    w = IterationWrite(iteration=iteration, started_at=started)
    per_task: dict[str, int] = {}
    by_task: dict[str, tuple[Task, list[float]]] = {}
    for g, variant, tokens in zip(graded, variants, new_tokens, strict=True):
        task = g.answer.task
        k = per_task[task.task_id] = per_task.get(task.task_id, -1) + 1
        prompt = build_prompt(task, variant)
        cand = Candidate(candidate_id=f"{task.task_id}:{iteration}:{k}", task_id=task.task_id,
                         completion=g.answer.text, code=g.code, model=model, prompt_hash=prompt.hash,
                         prompt_variant=prompt.variant, new_tokens=int(tokens))
        w.rollouts.append(Rollout(cand, g.result, g.reward, g.findings))
        w.audit.append(AuditEntry("candidate", cand.candidate_id, model, prompt.hash,
                                  audit_result(g.result.status.value, g.findings, g.result.events)))
        by_task.setdefault(task.task_id, (task, []))[1].append(float(g.passed))
    stored = store.stored(sorted(by_task))
    for task_id, (task, wins) in by_task.items():
        if task_id not in stored:  # a task of the caller's own, graded with score(Task, ...): stored with its use
            w.tasks.append(IterationTask(task, "generated"))
        else:
            w.task_uses.append(TaskUse(task_id, "replay" if task_id in seen else "generated"))
        controller.observe(task.family or EXTERNAL, wins, difficulty=task.difficulty)
    rates = {task_id: wins for task_id, (_, wins) in by_task.items()}
    w.proposal_rewards = proposal_rewards(cfg.selfplay, store, rates)  # proposals of these tasks, made earlier
    w.decisions = controller.maybe_adjust()
    w.metrics = {**_metrics(store, iteration, w, controller),
                 **proposal_metrics(store, iteration, w.proposal_rewards, rates)}
    selfplay = state.selfplay
    if cfg.selfplay.enabled:
        mix = _steered(cfg, state, [(task, wins) for task, wins in by_task.values()])
        selfplay = {**(state.selfplay or {}), "mix": mix.to_dict()}
        w.metrics["selfplay/proposer_share"] = mix.proposer_share
        w.metrics.update({f"selfplay/mode_weight/{m}": v for m, v in mix.mode_weights.items()})
        w.metrics.update({f"selfplay/kind_weight/{k}": v for k, v in mix.kind_weights.items()})
    w.state = replace(state, controller=controller.to_state(), env_reports=state.env_reports + 1, selfplay=selfplay)
    return w


def _steered(cfg: SpadeConfig, state: RunState, graded: list[tuple[Task, list[float]]]) -> Any:
    """Self-play's mix after a report, as the loop steers it (spade.selfplay.mix): each graded task's learnability
    observed under its source (a proposal's task, by its provenance, or the procedural supply), its mode and, for
    procedural tasks, its kind."""
    from spade.selfplay.mix import MixState, steer

    mix = MixState.from_dict((state.selfplay or {}).get("mix") or {}, cfg.selfplay)
    for task, wins in graded:
        source = "proposer" if task.provenance.get("source") == "proposer" else "procedural"
        mix.observe_task(source, task, sum(wins) / len(wins))
    return steer(mix, cfg.selfplay, cfg.generation.kinds)


def _metrics(store: RunStore, iteration: int, w: IterationWrite, controller: Any) -> dict[str, float]:
    """The loop's per-iteration task and rollout metrics (spade.rollout.metrics) for a report; the tasks its draws
    stored under this iteration count as accepted, with their rejections."""
    from spade.rollout.metrics import iteration_metrics
    from spade.store.views import filed_under

    drawn = filed_under(store, iteration)
    return iteration_metrics(w.rollouts, accepted=drawn.tasks + len(w.tasks),
                             replayed=sum(u.origin == "replay" for u in w.task_uses), rejected=drawn.rejections,
                             controller=controller)


def _controller(cfg: SpadeConfig, state: RunState) -> Any:
    from spade.curriculum import Controller
    from spade.generate.registry import resolve_families

    if state.controller:
        return Controller.from_state(cfg.evolution, state.controller)
    llm = cfg.generation.proposer == "llm"
    families = [EXTERNAL] if llm else [f.name for f in resolve_families(
        cfg.generation.families, cfg.generation.kinds, cfg.generation.withhold_families)]
    return Controller(cfg.evolution, families)


def _eval_suites(cfg: SpadeConfig) -> dict[str, list[Task]]:
    """The run's reported and gate suites, by name."""
    from spade.evaluate.suites import load_suite

    return {name: load_suite(name, cfg.generation.withhold_families)
            for name in dict.fromkeys((cfg.eval.suite, cfg.eval.gate_suite))}


def _reserved(cfg: SpadeConfig) -> list[Task]:
    """Foreign evaluation suites are reserved whole in the dedup index, as spade.pipeline.build does."""
    from spade.evaluate.suites import in_distribution

    return [t for name, tasks in _eval_suites(cfg).items() if not in_distribution(name) for t in tasks]


def _proposer(cfg: SpadeConfig) -> Any:
    from spade.generate.proposer.make import make_proposer

    return make_proposer(cfg)


class _run_file_lock:
    """An exclusive lock on RUN_DIR/.env.lock across processes, for rewriting the run directory's metrics files."""

    def __init__(self, run_dir: Path) -> None:
        self.path = run_dir / ".env.lock"

    def __enter__(self) -> None:
        import fcntl

        self.fh = open(self.path, "a")
        fcntl.flock(self.fh, fcntl.LOCK_EX)

    def __exit__(self, *exc: object) -> None:
        self.fh.close()  # closing releases the lock
