"""The proposer with the real embedded model behind a real llama.cpp server, drafts validated in the real sandbox.

The 135M model is weak: these tests assert that the pipeline runs and its counts add up, and report the acceptance
rate and the reject reasons (in the terminal summary, so CI logs show them without -s).
"""

from __future__ import annotations

import pytest

from spade.config import GenerationConfig
from spade.generate.proposer import LLMProposer, cross_check
from spade.serving.client import ChatClient
from spade.validate.dynamic import validate_drafts
from tests.serving.helpers import report

pytestmark = pytest.mark.slow


def _round(mode: str, count: int, llama_server, pool, examples):
    cfg = GenerationConfig(proposer="llm", proposer_mode=mode, proposer_examples=3, proposer_max_tokens=256)
    proposer = LLMProposer(cfg, ChatClient(llama_server.base_url, concurrency=2, max_retries=1))
    batch = proposer.propose(count, 0.3, examples, seed=0)
    outcomes = validate_drafts(batch.drafts, pool, cfg)
    stats = cross_check(batch, outcomes)
    report(f"{stats.summary()}; {stats.completion_tokens} tokens in {stats.seconds:.0f} s "
           f"({stats.tokens_per_s:.1f} tok/s)")
    for outcome in outcomes:
        if outcome.accepted:
            report(f"  accepted {outcome.task.signature}  # {outcome.task.description[:70]!r}")
    return batch, outcomes, stats


def test_code_first_proposals_from_the_real_model_are_validated_in_the_sandbox(llama_server, pool, store_examples):
    batch, outcomes, stats = _round("code_first", 8, llama_server, pool, store_examples)
    assert stats.answered == 8 == stats.drafted + sum(stats.rejected.values())
    assert stats.validated == len(outcomes) == stats.drafted
    assert stats.drafted == stats.accepted + sum(stats.invalid.values())
    drafts = {d.task_id: d for d in batch.drafts}
    for outcome in outcomes:
        if outcome.accepted:
            assert outcome.task.provenance["source"] == "llm"
            assert len(outcome.task.all_tests) == len(drafts[outcome.task.task_id].all_inputs)


def test_spec_proposals_in_json_mode_run_and_count_failures(llama_server, pool, store_examples):
    _batch, _outcomes, stats = _round("spec", 4, llama_server, pool, store_examples)
    assert stats.answered == 4 == stats.drafted + sum(stats.rejected.values())
    assert 0.0 <= stats.json_failure_rate <= stats.parse_failure_rate <= 1.0
