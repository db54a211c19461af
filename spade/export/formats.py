"""One row builder per export format, over a run's rollouts or tasks.

In: `ExportRow`s (sft, dpo) or `Task`s (grpo, verl, openrlhf). Out: JSON-ready dicts in each consumer's schema:
TRL conversational SFT (`messages`) and DPO (`prompt`/`chosen`/`rejected`), TRL GRPO prompts (`prompt`, `task_id`,
`ground_truth`), verl RL parquet rows, OpenRLHF prompt rows (`input`/`label`); from the proposals table, the
proposer role's SFT rows. Prompts are SPADE's own (public tests only); hidden tests travel only as ground truth for
the trainer's reward function.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import cycle, islice
from typing import Any

from spade.export.rows import ExportRow
from spade.groundtruth import DATA_SOURCE, ground_truth, verl_code_truth
from spade.policy.prompts import ASSISTANT_PREFILL, FENCE_CLOSE, Prompt, build_prompt
from spade.records import Task
from spade.store import ProposalRecord

VERL_CODE_SOURCE = "apps"  # a data_source verl's own code scorers (prime_code, SandboxFusion) accept

Messages = list[dict[str, str]]


def prompt_messages(task: Task, variant: int = 0) -> Messages:
    return [dict(m) for m in build_prompt(task, variant).messages]


def assistant_text(completion: str, code: str) -> str:
    """The answer as taught: the extracted code in a python fence (as RFT trains it); the raw text if no code."""
    if code.strip():
        return ASSISTANT_PREFILL + code.rstrip("\n") + FENCE_CLOSE
    return ASSISTANT_PREFILL + completion


def sft_rows(rollouts: Iterable[ExportRow]) -> list[dict[str, Any]]:
    """Passing answers, one per distinct (task, code), in TRL's conversational `messages` form."""
    rows, seen = [], set()
    for r in rollouts:
        key = (r.task.task_id, r.code.strip())
        if not r.passed or key in seen:
            continue
        seen.add(key)
        answer = {"role": "assistant", "content": assistant_text(r.completion, r.code)}
        rows.append({"messages": [*prompt_messages(r.task, r.prompt_variant), answer]})
    return rows


def dpo_rows(rollouts: Iterable[ExportRow]) -> list[dict[str, Any]]:
    """Pairs (passing, failing) of the same task; the shorter side is cycled so every distinct answer is used."""
    # Distinct answers per task and side: passing ones by code, failing ones by the text as sampled.
    groups: dict[str, dict[bool, dict[str, ExportRow]]] = {}
    for r in rollouts:
        sides = groups.setdefault(r.task.task_id, {True: {}, False: {}})
        sides[r.passed].setdefault(r.code.strip() if r.passed else r.completion, r)
    rows = []
    for sides in groups.values():
        chosen, rejected = list(sides[True].values()), list(sides[False].values())
        if not chosen or not rejected:
            continue
        n = max(len(chosen), len(rejected))
        for good, bad in zip(islice(cycle(chosen), n), islice(cycle(rejected), n)):
            rows.append({
                "prompt": prompt_messages(good.task, good.prompt_variant),
                "chosen": [{"role": "assistant", "content": assistant_text(good.completion, good.code)}],
                "rejected": [{"role": "assistant", "content": assistant_text(bad.completion, bad.code)}],
            })
    return rows


def grpo_rows(tasks: Sequence[Task]) -> list[dict[str, Any]]:
    """TRL GRPO prompts: conversational `prompt`, `task_id` and `ground_truth`; TRL passes the extra columns to
    reward functions, so `spade.env.trl.SpadeReward` scores these rows without a run database."""
    return [{"prompt": prompt_messages(t), "task_id": t.task_id, "ground_truth": ground_truth(t)} for t in tasks]


def verl_rows(tasks: Sequence[Task], split: str = "train", *, verl_code: bool = False) -> list[dict[str, Any]]:
    """verl's RL dataset rows; `reward_model.ground_truth` feeds `spade.export.reward_fn.compute_score`, and with
    `verl_code` also verl's own code scorers (`spade.groundtruth.verl_code_truth`): those rows are named
    `data_source` "apps", which verl's default scorer routes to them (SPADE's compute_score ignores the name)."""
    return [
        {
            "data_source": VERL_CODE_SOURCE if verl_code and verl_code_truth(t) else DATA_SOURCE,
            "prompt": prompt_messages(t),
            "ability": "code",
            "reward_model": {"style": "rule", "ground_truth": ground_truth(t, verl_code=verl_code)},
            "extra_info": {"task_id": t.task_id, "split": split, "index": i},
        }
        for i, t in enumerate(tasks)
    ]


def openrlhf_rows(tasks: Sequence[Task], render: Callable[[Prompt], str] | None = None) -> list[dict[str, Any]]:
    """OpenRLHF prompt rows, `label` the JSON ground truth. `input` is the chat messages (for OpenRLHF's
    `--data.apply_chat_template`), or with `render` the exact text the model continues (the chat template of the
    user's tokenizer, then the opening fence)."""
    return [{"input": render(build_prompt(t)) if render else prompt_messages(t), "label": ground_truth(t),
             "task_id": t.task_id} for t in tasks]


def proposer_rows(proposals: Iterable[ProposalRecord]) -> list[dict[str, Any]]:
    """The proposer role's data, as the loop's proposer RFT takes it: each proposal whose final reward is above 0
    (learnability from the solver's answers), its proposer prompt and the proposal as the assistant's answer
    (the prefill `def f(` and what followed), in TRL's conversational `messages` form."""
    from spade.kinds.code_reasoning.proposer_role import PREFILL
    from spade.selfplay.prompts import prompt_task

    return [{"messages": [*prompt_messages(prompt_task(p.prompt)),
                          {"role": "assistant", "content": PREFILL + p.completion}]}
            for p in proposals if p.reward > 0]
