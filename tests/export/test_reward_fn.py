"""The reward entry points for verl and OpenRLHF run answers in SPADE's sandbox against the hidden tests."""

from __future__ import annotations

import pytest

from spade.config import RewardConfig
from spade.errors import TaskFormatError
from spade.export.reward_fn import compute_score, reward_func
from spade.export.truth import ground_truth

from .conftest import SUM_EVENS

TRUTH = ground_truth(SUM_EVENS)
RIGHT = "```python\ndef sum_evens(nums):\n    return sum(n for n in nums if n % 2 == 0)\n```\nThis sums evens."
BONUS = RewardConfig().difficulty_bonus * SUM_EVENS.difficulty


def _hardcoded() -> str:
    lines = [f"    if nums == {list(c.args[0])!r}: return {c.expected!r}" for c in SUM_EVENS.test_cases]
    return "```python\ndef sum_evens(nums):\n" + "\n".join(lines) + "\n    return 0\n```"


def test_a_correct_answer_earns_the_full_reward_with_its_difficulty_bonus() -> None:
    assert compute_score("spade", RIGHT, TRUTH) == pytest.approx(1.0 + BONUS)


def test_hard_coding_the_public_tests_is_caught_by_the_hidden_ones() -> None:
    assert compute_score("spade", _hardcoded(), TRUTH, {"task_id": SUM_EVENS.task_id}) < 0.5


def test_an_answer_without_code_gets_the_format_penalty() -> None:
    assert compute_score("spade", "I do not know.", TRUTH) == pytest.approx(-RewardConfig().format_penalty)


def test_openrlhf_reward_func_scores_the_response_after_the_prompt() -> None:
    prompt = "<|im_start|>user\nsum evens<|im_end|>\n<|im_start|>assistant\n```python\n"
    responses = ["def sum_evens(nums):\n    return sum(n for n in nums if n % 2 == 0)\n```",
                 "def sum_evens(nums):\n    return -1\n```"]
    rewards = reward_func([prompt + r for r in responses], [prompt, prompt], [TRUTH, TRUTH])
    assert rewards.tolist() == pytest.approx([1.0 + BONUS, 0.0])


def test_ground_truth_that_spade_did_not_write_is_refused() -> None:
    with pytest.raises(TaskFormatError, match="re-export"):
        compute_score("spade", RIGHT, '{"tests": []}')
