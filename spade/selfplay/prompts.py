"""The proposer's prompts for one batch, as the loop and the environment API ask them.

In: prompt ids, a seeded RNG, the mix's mode weights, each mode's difficulty and the run's recent valid proposals.
Out: proposer prompt tasks (spade.kinds.code_reasoning.proposer_role renders them), each in a mode drawn by the
weights (or the one asked for), at the difficulty of its family `selfplay_<mode>`, with one earlier proposal drawn
as the worked example: for selfplay.learnable_examples of the prompts (when the run has any) one the solver solved
sometimes, else one of the newest valid proposals; with selfplay.retire_copied K, none that K proposals copied.
`prompt_json` / `prompt_task` are the prompt as the proposals table stores it and back.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from spade.kinds.code_reasoning.proposer_role import proposer_task
from spade.records import Task
from spade.store import RunStore
from spade.store.proposals import copied_examples, recent_programs

if TYPE_CHECKING:
    from spade.curriculum import Controller

EXAMPLES = 16  # recent valid proposals one example is drawn from


def recent_examples(store: RunStore, *, learnable: bool = False, retire: int = 0) -> list[str]:
    """The newest valid proposals of the run (with `learnable`, those the solver solved sometimes), as worked
    examples: `def f(` and the completion up to its fence; with `retire` K > 0, none that K proposals copied."""
    retired = {text for text, n in copied_examples(store).items() if n >= retire} if retire > 0 else set()
    shown = [("def f(" + text).split("```", 1)[0]
             for _, text in recent_programs(store, EXAMPLES + len(retired), learnable=learnable)]
    return [text for text in shown if text not in retired][:EXAMPLES]


def learnable_examples(store: RunStore, share: float, retire: int = 0) -> list[str]:
    """The learnable worked examples for prompts that show one with probability `share` (none read when 0)."""
    return recent_examples(store, learnable=True, retire=retire) if share > 0 else []


def level_of(controller: Controller, mode: str, initial: float) -> float:
    """The controller's difficulty for proposals in `mode` (its family `selfplay_<mode>`; `initial` until observed)."""
    family = controller.families.get(f"selfplay_{mode}")
    return family.difficulty if family is not None else initial


def proposer_prompts(ids: Sequence[str], rng: random.Random, mode_weights: Mapping[str, float],
                     level_of: Callable[[str], float], examples: Sequence[str], mode: str | None = None,
                     learnable: Sequence[str] = (), learnable_share: float = 0.0) -> list[Task]:
    """One prompt per id: its mode drawn by `mode_weights` (or `mode`), at `level_of(mode)`, with one example:
    with probability `learnable_share` one of `learnable` (when any), else one of `examples`."""
    modes = sorted(m for m, v in mode_weights.items() if v > 0)
    prompts = []
    for task_id in ids:
        chosen = mode or rng.choices(modes, [mode_weights[m] for m in modes])[0]
        pool = learnable if learnable and learnable_share > 0 and rng.random() < learnable_share else examples
        shown = rng.sample(list(pool), 1) if pool else []
        prompts.append(proposer_task(task_id, level_of(chosen), shown, chosen))
    return prompts


def prompt_json(prompt: Task) -> str:
    """The prompt as stored with its proposal (everything the rendered text depends on)."""
    return json.dumps({"task_id": prompt.task_id, "difficulty": prompt.difficulty,
                       "examples": prompt.params["examples"], "mode": prompt.params["mode"]})


def prompt_task(text: str) -> Task:
    """The prompt task back from `prompt_json`'s text (KeyError/ValueError/TypeError when it is not one)."""
    data = json.loads(text)
    return proposer_task(str(data["task_id"]), float(data["difficulty"]), list(data["examples"]), str(data["mode"]))
