"""TRL's reward-function contract: `reward(prompts=..., completions=..., completion_ids=..., **columns)` returns one
float per completion; the GRPO export's `ground_truth` column is all it needs."""

from __future__ import annotations

import pytest

from spade.config import RewardConfig
from spade.env.trl import SpadeReward
from spade.evaluate import load_suite
from spade.export.formats import grpo_rows

SUM_EVENS = next(t for t in load_suite("builtin") if t.task_id == "builtin/sum_evens")
RIGHT = "```python\ndef sum_evens(nums):\n    return sum(n for n in nums if n % 2 == 0)\n```"
WRONG = "```python\ndef sum_evens(nums):\n    return -1\n```"


def test_the_reward_grades_conversational_completions_on_the_exported_ground_truth() -> None:
    row = grpo_rows([SUM_EVENS])[0]
    logged: dict[str, float] = {}
    reward = SpadeReward()
    out = reward(prompts=[row["prompt"]] * 2, completions=[[{"role": "assistant", "content": RIGHT}],
                                                           [{"role": "assistant", "content": WRONG}]],
                 completion_ids=[[1], [2]], task_id=[row["task_id"]] * 2, ground_truth=[row["ground_truth"]] * 2,
                 trainer_state=None, log_extra=None, log_metric=lambda k, v: logged.update({k: v}))
    bonus = RewardConfig().difficulty_bonus * SUM_EVENS.difficulty
    assert out == pytest.approx([1.0 + bonus, 0.0])
    assert logged == {"spade/pass_rate": 0.5}
    assert reward.__name__ == "spade_reward"


def test_a_text_prompt_ending_inside_the_fence_counts_as_prefilled() -> None:
    row = grpo_rows([SUM_EVENS])[0]
    body = "def sum_evens(nums):\n    return sum(n for n in nums if n % 2 == 0)\n```"
    out = SpadeReward()(prompts=["...assistant\n```python\n"], completions=[body], ground_truth=[row["ground_truth"]])
    assert out[0] > 1.0
