"""The reward entry points for verl and OpenRLHF run answers in SPADE's sandbox against the hidden tests, and keep
each consumer's current contract: verl's `compute_score(data_source, solution_str, ground_truth, extra_info=None,
**kwargs)` returning a dict with `score` (and its batch manager's plural form), OpenRLHF's
`reward_func(queries, prompts, labels, **kwargs)` returning {"rewards", "scores", "extra_logs"}."""

from __future__ import annotations

import json

import pytest
import torch

from spade.config import GenerationConfig, RewardConfig
from spade.errors import TaskFormatError
from spade.export.reward_fn import compute_score, compute_score_batch, reward_func
from spade.generate.procedural import draft_task
from spade.groundtruth import ground_truth
from spade.kinds import validate_drafts
from spade.policy.prompts import build_prompt

from .conftest import SUM_EVENS

TRUTH = ground_truth(SUM_EVENS)
RIGHT = "```python\ndef sum_evens(nums):\n    return sum(n for n in nums if n % 2 == 0)\n```\nThis sums evens."
BONUS = RewardConfig().difficulty_bonus * SUM_EVENS.difficulty


def _hardcoded() -> str:
    lines = [f"    if nums == {list(c.args[0])!r}: return {c.expected!r}" for c in SUM_EVENS.test_cases]
    return "```python\ndef sum_evens(nums):\n" + "\n".join(lines) + "\n    return 0\n```"


def test_a_correct_answer_earns_the_full_reward_with_its_difficulty_bonus() -> None:
    out = compute_score("spade", RIGHT, TRUTH)
    assert out["score"] == pytest.approx(1.0 + BONUS)
    assert out["acc"] == 1.0 and out["pass_fraction"] == 1.0 and out["no_code"] == 0.0
    assert all(isinstance(v, float) for v in out.values())  # verl averages every extra key


def test_compute_score_takes_the_keyword_arguments_verl_adds() -> None:
    # verl's reward loop passes its reward_kwargs and, on some paths, sandbox settings by keyword.
    out = compute_score(data_source="spade", solution_str=RIGHT, ground_truth=TRUTH, extra_info=None,
                        sandbox_fusion_url=None, concurrent_semaphore=None, memory_limit_mb=1024, return_dict=True)
    assert out["score"] == pytest.approx(1.0 + BONUS)


def test_hard_coding_the_public_tests_is_caught_by_the_hidden_ones() -> None:
    out = compute_score("spade", _hardcoded(), TRUTH, {"task_id": SUM_EVENS.task_id})
    assert out["score"] < 0.5 and out["hardcoding_suspected"] == 1.0 and out["acc"] == 0.0


def test_an_answer_without_code_gets_the_format_penalty() -> None:
    out = compute_score("spade", "I do not know.", TRUTH)
    assert out["score"] == pytest.approx(-RewardConfig().format_penalty) and out["no_code"] == 1.0


def test_ground_truth_already_parsed_by_the_data_loader_is_accepted() -> None:
    assert compute_score("spade", RIGHT, json.loads(TRUTH))["acc"] == 1.0


def test_the_batch_form_grades_each_answer_in_order_under_verls_keyword_names() -> None:
    wrong = "```python\ndef sum_evens(nums):\n    return -1\n```"
    out = compute_score_batch(data_sources=["spade"] * 3, solution_strs=[wrong, RIGHT, "no code"],
                              ground_truths=[TRUTH] * 3, extra_infos=[None, {"index": 1}, None], some_reward_kwarg=1)
    assert [o["acc"] for o in out] == [0.0, 1.0, 0.0]
    assert out[1]["score"] == pytest.approx(1.0 + BONUS) and out[2]["no_code"] == 1.0


def test_openrlhf_reward_func_returns_its_dict_for_a_prompt_ending_inside_the_fence() -> None:
    prompt = "<|im_start|>user\nsum evens<|im_end|>\n<|im_start|>assistant\n```python\n"
    responses = ["def sum_evens(nums):\n    return sum(n for n in nums if n % 2 == 0)\n```<|im_end|>",
                 "def sum_evens(nums):\n    return -1\n```"]
    out = reward_func([prompt + r for r in responses], [prompt, prompt], [TRUTH, TRUTH], extra="ignored")
    assert set(out) == {"rewards", "scores", "extra_logs"}
    assert out["rewards"].dtype == torch.float32 and out["rewards"].tolist() == pytest.approx([1.0 + BONUS, 0.0])
    assert out["scores"].tolist() == [1.0, 0.0]  # pass fractions in [0, 1], for dynamic filtering
    assert out["extra_logs"]["spade/acc"] == 0.5


def test_openrlhf_reward_func_scores_a_prompt_rendered_from_messages_one_query_at_a_time() -> None:
    # OpenRLHF >= 0.8.8 applies the chat template itself (--data.apply_chat_template) and calls with one query.
    prompt = "<|im_start|>user\nsum evens<|im_end|>\n<|im_start|>assistant\n"
    out = reward_func([prompt + RIGHT], [prompt], [TRUTH])
    assert out["rewards"].tolist() == pytest.approx([1.0 + BONUS])
    # Rewards and scores are one-element tensors: OpenRLHF wraps each in torch.tensor([value]).
    assert torch.tensor([out["rewards"][0].item()]).shape == (1,)


def test_openrlhf_reward_func_continues_the_prefill_of_the_tasks_own_kind(pool) -> None:
    # A tool-call prompt ends inside the JSON list's first call, not in a Python fence.
    outcome = validate_drafts([draft_task("tool_call_kv", 0.0, 0, 0, 3, 5)], pool, GenerationConfig())[0]
    assert outcome.accepted and outcome.task is not None, outcome.details
    task = outcome.task
    prefill = build_prompt(task).prefill
    calls = json.loads(task.reference_solution)
    first = json.dumps(calls[0])
    assert prefill.endswith('{"name": "') and first.startswith('{"name": "')
    right = first[len('{"name": "'):] + "".join(", " + json.dumps(c) for c in calls[1:]) + "\n]\n```"
    prompt = "<|im_start|>user\nrequest<|im_end|>\n<|im_start|>assistant\n" + prefill
    out = reward_func([prompt + right], [prompt], [ground_truth(task)])
    assert out["scores"].tolist() == [1.0]


def test_ground_truth_that_spade_did_not_write_is_refused() -> None:
    with pytest.raises(TaskFormatError, match="re-export"):
        compute_score("spade", RIGHT, '{"tests": []}')
