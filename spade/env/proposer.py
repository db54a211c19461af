"""Self-play's proposer role through the environment API: the records an outside trainer gets and the judging of
its proposals, by the loop's own judging (spade.selfplay.judging).

In: proposer prompts (spade.selfplay.prompts) and the trainer's completions. Out: one `ProposalVerdict` per
completion (spade.selfplay.judging: bounded, parsed, validated by execution in the sandbox, never by the model; a
valid proposal that copies its prompt's example or duplicates a recent proposal or a stored task is not admitted).
The immediate reward is the penalty (invalid, duplicate) or 0 while the solver's answers are awaited;
`proposal_rewards` turns a report's answers on an admitted task into its learnability and reward.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from spade.config import SelfplayConfig, SpadeConfig
from spade.errors import ConfigError
from spade.kinds.code_reasoning.prompt import MODES
from spade.kinds.code_reasoning.proposer_role import PREFILL, PROPOSER
from spade.records import Task
from spade.selfplay import prompts
from spade.selfplay.judging import Judged
from spade.selfplay.prompts import prompt_json, prompt_task
from spade.selfplay.reward import proposal_reward
from spade.store import ProposalReward, RunState, RunStore
from spade.store import proposals as stored

if TYPE_CHECKING:
    from spade.curriculum import Controller
    from spade.env.environment import Drawn

MAX_PROMPT_JSON_CHARS = 64_000  # a dataset row's `proposer_prompt`: one short example and a few numbers


@dataclass(frozen=True, slots=True)
class ProposerPrompt:
    """A proposer prompt handed to the trainer: the prompt task (kind code_reasoning_proposer) and the iteration
    it opened in. The model answers with a small function f and calls of it (SPADE's own loop prefills `def f(`)."""

    task: Task
    iteration: int

    @property
    def mode(self) -> str:
        return str(self.task.params["mode"])

    @property
    def prefill(self) -> str:
        """The text SPADE's loop puts after the chat template (pass prefilled=True when your prompts end with it)."""
        return PREFILL

    def messages(self) -> list[dict[str, str]]:
        """The chat prompt SPADE's own loop shows the proposer role."""
        from spade.policy.prompts import build_prompt

        return [dict(m) for m in build_prompt(self.task).messages]

    def row(self) -> dict[str, Any]:
        """A dataset row: conversational `prompt`, `task_id` (the prompt's), `role` and `proposer_prompt`, the
        prompt as JSON, which `submit_proposals` takes in place of this record (from another process)."""
        return {"prompt": self.messages(), "task_id": self.task.task_id, "role": "proposer",
                "proposer_prompt": prompt_json(self.task)}


@dataclass(frozen=True, slots=True)
class ProposalVerdict:
    """One proposal judged: `valid` when it parsed and its program validated by execution; `task_id` when it was
    also new and is stored (then `drawn` is the task to hand the solver); `reason` (ok, a parse or validation
    reason, duplicate_exact / duplicate_near / duplicate_example); `reward` now: minus the invalid or duplicate
    penalty, else 0 until the solver's answers on the task are reported (then the proposal's row holds its
    learnability and reward)."""

    proposal_id: str
    valid: bool
    reason: str
    task_id: str | None
    reward: float
    similarity: float = 0.0
    drawn: Drawn | None = None

    @property
    def pending(self) -> bool:
        """Its reward waits for the solver's answers on its task."""
        return self.task_id is not None


def proposer_prompts(cfg: SpadeConfig, store: RunStore, controller: Controller, state: RunState, iteration: int,
                     seed: int, ids: Sequence[str], mode: str | None) -> list[ProposerPrompt]:
    """The loop's proposer prompts (spade.selfplay.prompts) for the environment: modes weighted as the run's mix
    holds them (selfplay.modes until a self-play loop on the run steers it), or all in `mode`."""
    from spade.selfplay.mix import MixState

    mix = MixState.from_dict((state.selfplay or {}).get("mix") or {}, cfg.selfplay)
    tasks = prompts.proposer_prompts(ids, random.Random(seed), mix.mode_weights,
                                     lambda m: prompts.level_of(controller, m, cfg.evolution.initial_difficulty),
                                     prompts.recent_examples(store, retire=cfg.selfplay.retire_copied), mode,
                                     learnable=prompts.learnable_examples(store, cfg.selfplay.learnable_examples,
                                                                          cfg.selfplay.retire_copied),
                                     learnable_share=cfg.selfplay.learnable_examples)
    return [ProposerPrompt(t, iteration) for t in tasks]


def prompt_of(prompt: ProposerPrompt | Task | str) -> Task:
    """The proposer prompt task from a `propose` record, the task itself, or a row's `proposer_prompt` JSON."""
    if isinstance(prompt, ProposerPrompt):
        return prompt.task
    if isinstance(prompt, Task):
        if prompt.kind != PROPOSER or prompt.params.get("mode") not in MODES:
            raise ConfigError(f"submit_proposals prompt {prompt.task_id!r} is not a proposer prompt; pass the prompts "
                              "`propose` returned (or their rows' proposer_prompt)")
        return prompt
    if isinstance(prompt, str) and len(prompt) <= MAX_PROMPT_JSON_CHARS:
        try:
            task = prompt_task(prompt)
        except (ValueError, KeyError, TypeError, RecursionError):
            task = None
        if task is not None and task.params["mode"] in MODES:
            return task
    raise ConfigError(f"submit_proposals prompt {str(prompt)[:80]!r} is not a proposer prompt; pass the prompts "
                      "`propose` returned, or their rows' proposer_prompt field unchanged")


def verdicts(entries: Sequence[Judged], iteration: int, sp: SelfplayConfig) -> list[ProposalVerdict]:
    from spade.env.environment import Drawn

    out = []
    for e in entries:
        _, reward = proposal_reward(sp, valid=e.valid, solve_rate=None, similarity=e.similarity, duplicate=e.duplicate)
        task = e.task if e.admitted else None
        out.append(ProposalVerdict(e.proposal_id, e.valid, e.reason, task.task_id if task else None, reward,
                                   e.similarity, Drawn(task, "generated", iteration) if task else None))
    return out


def proposal_rewards(sp: SelfplayConfig, store: RunStore, rates: dict[str, list[float]]) -> list[ProposalReward]:
    """For each admitted proposal still waiting, whose task this report grades: its solve rate over the report's
    answers on the task, its learnability and its reward (spade.selfplay.reward)."""
    out = []
    for proposal_id, task_id, similarity in stored.awaiting_reward(store, sorted(rates)):
        got = rates[task_id]
        rate = sum(got) / len(got)
        learn, reward = proposal_reward(sp, valid=True, solve_rate=rate, similarity=similarity, duplicate=False)
        out.append(ProposalReward(proposal_id, rate, learn, reward))
    return out


def proposal_metrics(store: RunStore, iteration: int, rewarded: Sequence[ProposalReward],
                     rates: dict[str, list[float]]) -> dict[str, float]:
    """The loop's self-play metrics that a report can state: validity, distinct and duplicate shares of the
    proposals filed under this iteration; learnability and the solver's pass rate of the proposals rewarded now."""
    m: dict[str, float] = {}
    n, valid, admitted = stored.filed_under(store, iteration)
    if n:
        m["selfplay/proposals"] = float(n)
        m["selfplay/proposer_validity"] = valid / n
        m["selfplay/distinct_per_100"] = 100.0 * admitted / n
        m["selfplay/near_duplicate_rate"] = (valid - admitted) / valid if valid else 0.0
    if rewarded:
        m["selfplay/proposals_rewarded"] = float(len(rewarded))
        m["selfplay/mean_learnability"] = sum(r.learnability for r in rewarded) / len(rewarded)
        tasks = {task_id for _, task_id, _ in stored.awaiting_reward(store, sorted(rates))}  # before this commit
        wins = [x for t in tasks for x in rates[t]]
        if wins:
            m["selfplay/pass_rate/source/proposer"] = sum(wins) / len(wins)
    return m

