"""Build the long-lived parts of a run (sandbox pool, policy, trainer, controller, dedup index, eval set).

On resume, the controller comes from the last committed iteration's state and the policy from the
checkpoint that iteration names, so the next iteration starts exactly where the last commit left off.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

from spade.config import SpadeConfig
from spade.curriculum import Controller
from spade.pipeline.stages import EXTERNAL, Engine, Progress, TaskStream
from spade.store import RunStore


@contextmanager
def build_engine(cfg: SpadeConfig, store: RunStore, progress: Progress) -> Iterator[Engine]:
    from spade.dedup import DedupIndex
    from spade.evaluate.suites import load_suite
    from spade.generate.registry import resolve_families
    from spade.sandbox import SandboxPool
    from spade.train.checkpoint import load_checkpoint
    from spade.train.gate import EvalGate
    from spade.train.rft import RftTrainer

    llm_tasks = cfg.generation.proposer == "llm"
    families = [EXTERNAL] if llm_tasks else [f.name for f in resolve_families(cfg.generation.families)]
    last = store.last_iteration()
    state = store.state_after(last) if last >= 0 else {}
    controller = (
        Controller.from_state(cfg.evolution, state["controller"])
        if state.get("controller")
        else Controller(cfg.evolution, families)
    )
    suite = load_suite(cfg.eval.suite)
    eval_tasks = suite[: cfg.eval.limit] if cfg.eval.limit else suite
    # The whole evaluation suite is in the index, so no evaluation problem can leak into training.
    dedup = DedupIndex.from_tasks([*suite, *store.tasks()], threshold=cfg.generation.dedup_threshold)
    with SandboxPool(cfg.executor) as pool:
        progress("load model", 0, 1)
        policy = make_policy(cfg)
        stream = TaskStream()
        trainer = None
        if cfg.training.update_method == "rft":
            trainer = RftTrainer(policy, cfg.training)
        elif cfg.training.update_method == "grpo":
            from spade.train.grpo import GrpoUpdater

            trainer = GrpoUpdater(policy, cfg.training, pool, cfg.reward, stream, cfg.sampling)
        gate = None
        if trainer is not None and cfg.eval.every:
            gate = EvalGate.from_state(state["gate"]) if state.get("gate") else EvalGate(cfg.eval.rollback_margin)
        checkpoint = state.get("checkpoint")
        if checkpoint and trainer is not None:
            load_checkpoint(store.run_dir / checkpoint, policy, trainer)
        progress("load model", 1, 1)
        yield Engine(cfg=cfg, store=store, pool=pool, policy=policy, trainer=trainer, controller=controller,
                     dedup=dedup, eval_tasks=eval_tasks, families=families, gate=gate, task_stream=stream,
                     proposer=make_proposer(cfg) if llm_tasks else None, progress=progress, checkpoint=checkpoint)


def make_policy(cfg: SpadeConfig) -> Any:
    """The embedded model, or a model behind an OpenAI-compatible server (sampling only: it cannot be trained here)."""
    if cfg.sampling.backend == "openai":
        from spade.policy.openai_backend import OpenAIPolicy

        return OpenAIPolicy(cfg.sampling)
    from spade.policy.embedded import EmbeddedPolicy

    return EmbeddedPolicy(cfg.sampling, cfg.training)


def make_proposer(cfg: SpadeConfig) -> Any:
    from spade.generate.proposer import LLMProposer
    from spade.serving.client import ChatClient

    gen = cfg.generation
    client = ChatClient.from_sampling(cfg.sampling, base_url=gen.proposer_base_url or None,
                                      model=gen.proposer_model or None)
    return LLMProposer(gen, client)
