"""The LLM task proposer: ask a model for new tasks, parse its answers into TaskDrafts, count what went wrong.

In: a GenerationConfig, a ChatClient, the target difficulty, example Tasks from the store, a count and a seed.
Out: a `ProposalBatch`: TaskDrafts (provenance source=llm, model, prompt_hash, mode) for spade.validate's
validate_drafts, the expected values the model stated, and `ProposalStats`. Each parsed proposal's reference and
description are screened as candidates are (spade.audit.screen_code) before it becomes a draft: one with a finding
(a shell-out, network use, credential paths, dynamic execution...) is rejected as `screened`, so it never becomes a
task, a prompt or a few-shot example. After validation, `cross_check` adds the validation verdicts and the
stated-versus-executed disagreements to the stats.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from spade.audit import screen_code
from spade.config import GenerationConfig
from spade.generate.procedural import TaskDraft
from spade.generate.proposer.parse import Proposal, Rejection, parse_answer
from spade.generate.proposer.prompts import TOPICS, prompt_hash, proposer_messages
from spade.records import Task
from spade.serving.client import ChatClient, ChatRequest


@dataclass
class ProposalStats:
    """Counts of one proposal round. answered = drafted + sum(rejected); drafted = accepted + sum(invalid) once
    cross-checked. `rejected` holds parse-stage reasons, `invalid` the first validation reason of each draft."""

    mode: str
    requested: int = 0
    answered: int = 0
    drafted: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    validated: int = 0
    accepted: int = 0
    invalid: Counter[str] = field(default_factory=Counter)
    stated_checked: int = 0
    expected_mismatch: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0  # wall time of the requests, all in flight together

    @property
    def tokens_per_s(self) -> float:
        return self.completion_tokens / self.seconds if self.seconds else 0.0

    @property
    def parse_failure_rate(self) -> float:
        """Share of answers that gave no draft (no JSON, no code, no function, no inputs…)."""
        return sum(self.rejected.values()) / self.answered if self.answered else 0.0

    @property
    def json_failure_rate(self) -> float:
        """Share of answers that held no JSON object (spec mode; 0 in code_first mode)."""
        return self.rejected["not_json"] / self.answered if self.answered else 0.0

    @property
    def acceptance_rate(self) -> float:
        """Share of requested proposals that became validated tasks."""
        return self.accepted / self.requested if self.requested else 0.0

    def metrics(self) -> dict[str, float]:
        """Flat numbers for the run's metrics table, under proposer/…"""
        out = {
            "proposer/requested": float(self.requested), "proposer/drafted": float(self.drafted),
            "proposer/accepted": float(self.accepted), "proposer/acceptance_rate": self.acceptance_rate,
            "proposer/parse_failure_rate": self.parse_failure_rate,
            "proposer/json_failure_rate": self.json_failure_rate,
            "proposer/expected_mismatch": float(self.expected_mismatch),
        }
        out.update({f"proposer/rejected/{k}": float(v) for k, v in self.rejected.items()})
        out.update({f"proposer/invalid/{k}": float(v) for k, v in self.invalid.items()})
        return out

    def summary(self) -> str:
        reasons = ", ".join(f"{k}={v}" for k, v in (self.rejected + self.invalid).most_common()) or "none"
        return (f"proposer[{self.mode}]: {self.accepted}/{self.requested} accepted ({self.acceptance_rate:.0%}), "
                f"{self.drafted} drafted, parse failures {self.parse_failure_rate:.0%}, JSON failures "
                f"{self.json_failure_rate:.0%}, stated-value mismatches {self.expected_mismatch}/{self.stated_checked}"
                f"; "
                f"reject reasons: {reasons}")


@dataclass
class ProposalBatch:
    drafts: list[TaskDraft]
    stated: dict[str, dict[int, Any]]  # task_id -> {input index: value the model claimed}
    stats: ProposalStats


class OutcomeLike(Protocol):
    """What cross_check reads of a spade.validate ValidationOutcome."""

    accepted: bool
    task: Task | None
    reasons: tuple[str, ...]
    task_id: str


class LLMProposer:
    """Proposes tasks with a model behind an OpenAI-compatible API, in `cfg.proposer_mode`."""

    def __init__(self, cfg: GenerationConfig, client: ChatClient) -> None:
        self.cfg = cfg
        self.client = client
        self.mode = cfg.proposer_mode

    def propose(self, count: int, difficulty: float, examples: Sequence[Task], seed: int = 0,
                start_index: int = 0) -> ProposalBatch:
        """`count` proposals (one request each) for indices start_index…, at `difficulty`, shown k examples."""
        stats = ProposalStats(mode=self.mode, requested=count)
        plans = [self._plan(difficulty, examples, seed, i) for i in range(start_index, start_index + count)]
        requests = [ChatRequest(messages=m, temperature=self.cfg.proposer_temperature, top_p=0.95,
                                max_tokens=self.cfg.proposer_max_tokens, seed=s, json_mode=self.mode == "spec")
                    for m, s in plans]
        started = time.perf_counter()
        results = self.client.chat_many(requests)
        stats.seconds += time.perf_counter() - started
        drafts: list[TaskDraft] = []
        stated: dict[str, dict[int, Any]] = {}
        for (messages, request_seed), result in zip(plans, results):
            stats.answered += 1
            stats.completion_tokens += result.completion_tokens
            parsed = parse_answer(result.texts[0] if result.texts else "", self.mode)
            if isinstance(parsed, Rejection):
                stats.rejected[parsed.reason] += 1
                continue
            if screened(parsed):
                stats.rejected["screened"] += 1
                continue
            draft = self._draft(parsed, difficulty, prompt_hash(messages), request_seed)
            stats.drafted += 1
            drafts.append(draft)
            stated[draft.task_id] = dict(parsed.stated)
        return ProposalBatch(drafts, stated, stats)

    def _plan(self, difficulty: float, examples: Sequence[Task], seed: int, index: int) -> tuple[Any, int]:
        rng = random.Random(f"spade-propose|{seed}|{index}")
        shots = pick_examples(examples, difficulty, self.cfg.proposer_examples, rng)
        messages = proposer_messages(self.mode, difficulty, rng.choice(TOPICS), shots)
        return messages, rng.randrange(2**31 - 1)

    def _draft(self, p: Proposal, difficulty: float, p_hash: str, request_seed: int) -> TaskDraft:
        n_public = min(self.cfg.public_tests, max(len(p.inputs) // 2, 1)) if len(p.inputs) > 1 else 0
        content = json.dumps([p.description, p.signature, p.reference, [list(a) for a in p.inputs]])
        return TaskDraft(
            task_id=f"llm-{hashlib.sha256(content.encode()).hexdigest()[:12]}",
            description=p.description, signature=p.signature, entry_point=p.entry_point,
            difficulty=round(min(max(float(difficulty), 0.0), 1.0), 4), tags=("llm",),
            public_inputs=p.inputs[:n_public], hidden_inputs=p.inputs[n_public:], reference_solution=p.reference,
            family=None,  # not a registered family: validation must not ask a family for probe inputs
            params={},
            provenance={"source": "llm", "model": self.client.model, "prompt_hash": p_hash, "mode": self.mode,
                        "seed": request_seed},
        )


def screened(p: Proposal) -> tuple[str, ...]:
    """Screen findings for a proposal's reference (as code) and description (as text, for the same names)."""
    return tuple(sorted(set(screen_code(p.reference)) | set(screen_code(p.description))))


def pick_examples(examples: Sequence[Task], difficulty: float, k: int, rng: random.Random) -> list[Task]:
    """k examples with a reference, drawn from the 2k nearest the target difficulty (variety without drift)."""
    usable = sorted((t for t in examples if t.reference_solution), key=lambda t: (abs(t.difficulty - difficulty),
                                                                                  t.task_id))
    pool = usable[: 2 * k]
    return rng.sample(pool, min(k, len(pool)))


def cross_check(batch: ProposalBatch, outcomes: Sequence[OutcomeLike]) -> ProposalStats:
    """Add validation verdicts to the stats and count stated values that execution contradicts.

    Validation keeps a draft's inputs in order (public then hidden), so test i of the task is input i."""
    stats = batch.stats
    for outcome in outcomes:
        stats.validated += 1
        if not outcome.accepted or outcome.task is None:
            stats.invalid[outcome.reasons[0] if outcome.reasons else "rejected"] += 1
            continue
        stats.accepted += 1
        tests = outcome.task.all_tests
        for index, value in batch.stated.get(outcome.task.task_id, {}).items():
            if index < len(tests):
                stats.stated_checked += 1
                stats.expected_mismatch += not same_value(tests[index].expected, value)
    return stats


def same_value(actual: Any, stated: Any) -> bool:
    """Strict JSON equality (True is not 1) with a relative float tolerance of 1e-6."""
    if isinstance(actual, bool) or isinstance(stated, bool):
        return type(actual) is type(stated) and actual == stated
    if isinstance(actual, float) or isinstance(stated, float):
        return isinstance(actual, (int, float)) and isinstance(stated, (int, float)) and math.isclose(
            actual, stated, rel_tol=1e-6, abs_tol=1e-9)
    if isinstance(actual, list) and isinstance(stated, list):
        return len(actual) == len(stated) and all(same_value(a, s) for a, s in zip(actual, stated))
    if isinstance(actual, dict) and isinstance(stated, dict):
        return actual.keys() == stated.keys() and all(same_value(actual[k], stated[k]) for k in actual)
    return type(actual) is type(stated) and actual == stated
