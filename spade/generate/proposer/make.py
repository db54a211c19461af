"""The LLM proposer a config asks for (generation.proposer: llm), built once where a run or an environment opens."""

from __future__ import annotations

from typing import Any

from spade.config import SpadeConfig


def make_proposer(cfg: SpadeConfig) -> Any:
    from spade.generate.proposer import LLMProposer
    from spade.serving.client import ChatClient

    gen = cfg.generation
    client = ChatClient.from_sampling(cfg.sampling, base_url=gen.proposer_base_url or None,
                                      model=gen.proposer_model or None)
    return LLMProposer(gen, client)
