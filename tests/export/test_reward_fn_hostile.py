"""The exported reward functions on degenerate answers from the red-team set: each is a verdict (the format
penalty, or a run's own status) within 2 s of host CPU and a bounded host memory, never an exception; a correct
answer graded after them still earns the full reward. Real sandbox (the process's shared pool)."""

from __future__ import annotations

import time
import tracemalloc

import pytest

from spade.config import RewardConfig
from spade.env.trl import SpadeReward
from spade.export.reward_fn import compute_score, reward_func
from spade.groundtruth import ground_truth

from .conftest import SUM_EVENS

TRUTH = ground_truth(SUM_EVENS)
RIGHT = "```python\ndef sum_evens(nums):\n    return sum(n for n in nums if n % 2 == 0)\n```"
FULL = 1.0 + RewardConfig().difficulty_bonus * SUM_EVENS.difficulty
FORMAT = -RewardConfig().format_penalty

HOSTILE = {
    "a sum of 3,000 terms": "```python\ndef sum_evens(nums):\n    return 0" + "+0" * 3000 + "\n```",
    "400 decorator lines": "```python\n" + "@x\n" * 400 + "```",
    "20,000 decorator lines": "@x\n" * 20_000,
    "700 open parentheses": "```python\n" + "x=(\n" * 700 + "```",
    "parentheses 5,000 deep": "```python\ndef sum_evens(nums):\n    return " + "(" * 5000 + "0" + ")" * 5000 + "\n```",
    "a NUL in the code": "```python\ndef sum_evens(nums):\n    return 0\x00\n```",
    "a line of a megabyte": "```python\ndef sum_evens(nums):\n    return " + "1+" * 500_000 + "1\n```",
    "6 MB of code": "```python\ndef sum_evens(nums):\n    return 0\n" + "x = 1\n" * 1_000_000 + "```",
}


@pytest.mark.parametrize("name", HOSTILE)
def test_a_degenerate_answer_is_a_verdict_in_bounded_host_time_and_memory(name: str) -> None:
    compute_score("spade", RIGHT, TRUTH)  # the shared pool started before the clock does
    started = time.process_time()
    out = compute_score("spade", HOSTILE[name], TRUTH)
    spent = time.process_time() - started
    tracemalloc.start()  # a second call, traced (tracing slows what the first one timed)
    try:
        compute_score("spade", HOSTILE[name], TRUTH)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert out["acc"] == 0.0 and out["score"] < 1.0  # the format penalty, or its own (wrong) return values
    assert spent < 2.0, f"{name}: {spent:.2f} s of host CPU"
    assert peak < 200 << 20, f"{name}: {peak >> 20} MB traced at peak"
    assert compute_score("spade", RIGHT, TRUTH)["score"] == pytest.approx(FULL)


def test_a_sum_too_long_for_the_parser_is_the_format_penalty_in_every_reward_function() -> None:
    answer = HOSTILE["a sum of 3,000 terms"]
    assert compute_score("spade", answer, TRUTH)["score"] == pytest.approx(FORMAT)
    out = reward_func([answer, "p" + RIGHT], ["", "p"], [TRUTH, TRUTH])
    assert out["rewards"].tolist() == pytest.approx([FORMAT, FULL])
    assert SpadeReward()([[{"role": "user", "content": "q"}]] * 2, [answer, RIGHT],
                         ground_truth=[TRUTH, TRUTH]) == pytest.approx([FORMAT, FULL])


def test_lone_surrogates_in_the_answer_are_graded() -> None:
    assert compute_score("spade", RIGHT.replace("```\n", "```\n\ud800", 1) + "\udfff", TRUTH)["score"] == \
        pytest.approx(FULL)
    assert compute_score("spade", RIGHT.replace("return", "# \ud800\n    return"), TRUTH)["score"] == \
        pytest.approx(FULL)


def test_ground_truth_nested_past_the_json_decoder_is_the_one_line_error_for_bad_ground_truth() -> None:
    from spade.errors import TaskFormatError

    with pytest.raises(TaskFormatError, match="nests too deeply"):
        compute_score("spade", RIGHT, "[" * 100_000)
