"""A task kind added from one test-local file (toy_kind.py) runs through validation, the loop's grading path and
the evaluator, next to Python function tasks, with nothing else changed."""

from __future__ import annotations

import json

import pytest

import tests.kinds.toy_kind  # noqa: F401  (registers the kind)
from spade.config import GenerationConfig, RewardConfig
from spade.errors import ConfigError
from spade.evaluate.evaluator import grade_samples
from spade.kinds import KINDS, validate_tasks
from spade.policy.prompts import build_prompt
from spade.records import Completion, Task, TestCase
from spade.rollout import Grader
from spade.taskio import task_from_dict, task_to_dict
from tests.kinds.toy_kind import NAME

SIX_BY_SEVEN = Task("toy/6x7", "What is 6 * 7?", "def answer():", "answer", 0.5,
                    test_cases=(TestCase((), 42),), reference_solution="42", kind=NAME)
WRONG_REFERENCE = Task("toy/bad", "What is 2 + 2?", "def answer():", "answer", 0.5,
                       test_cases=(TestCase((), 4),), reference_solution="5", kind=NAME)
DOUBLE = Task("py/double", "Double x.", "def double(x: int) -> int:", "double", 0.2,
              test_cases=(TestCase((2,), 4),), hidden_test_cases=(TestCase((5,), 10),),
              reference_solution="def double(x):\n    return 2 * x\n")


def test_the_toy_kind_is_registered_and_an_unknown_kind_lists_the_known_ones():
    assert NAME in KINDS.names() and "python_function" in KINDS.names()
    with pytest.raises(ConfigError, match="unknown task kind 'nope'.*python_function"):
        KINDS.get("nope")


def test_the_kind_shows_its_own_prompt_and_round_trips_through_the_task_schema():
    assert "Answer with one integer" in build_prompt(SIX_BY_SEVEN).messages[0]["content"]
    assert task_from_dict(json.loads(json.dumps(task_to_dict(SIX_BY_SEVEN)))) == SIX_BY_SEVEN
    assert "kind" not in task_to_dict(DOUBLE)  # python function task files stay as they were


def test_validation_uses_each_tasks_own_kind(pool):
    outcomes = validate_tasks([SIX_BY_SEVEN, DOUBLE, WRONG_REFERENCE], pool, GenerationConfig())
    assert [o.accepted for o in outcomes] == [True, True, False]
    assert outcomes[2].reasons == ("expected_mismatch",)
    assert outcomes[1].task is not None and outcomes[1].task.reference_cpu_s > 0  # the python validator ran


def test_the_loops_grading_path_extracts_executes_and_rewards_each_kind(pool):
    tasks = [SIX_BY_SEVEN, SIX_BY_SEVEN, SIX_BY_SEVEN, DOUBLE]
    texts = ["6 * 7 = 42", "It is 41.", "I do not know.", "def double(x):\n    return x * 2\n```"]
    rollouts = Grader(pool, RewardConfig()).grade(tasks, [Completion(t) for t in texts], ids=["a", "b", "c", "d"])
    assert [r.candidate.code for r in rollouts[:3]] == ["42", "41", ""]
    assert [r.passed for r in rollouts] == [True, False, False, True]
    assert rollouts[0].reward.total == pytest.approx(1 + RewardConfig().difficulty_bonus * 0.5)
    assert rollouts[2].reward.format_penalty == RewardConfig().format_penalty  # no answer is a format failure


def test_the_evaluator_grades_the_kinds_samples(pool, tmp_path):
    samples = tmp_path / "samples.jsonl"
    lines = [("toy/6x7", "42"), ("toy/6x7", "forty-two"), ("py/double", "def double(x):\n    return x + x\n")]
    samples.write_text("".join(json.dumps({"task_id": t, "completion": c}) + "\n" for t, c in lines))
    report = grade_samples(pool, [SIX_BY_SEVEN, DOUBLE], samples, ks=(1,), suite="toy")
    assert report.to_dict()["n_tasks"] == 2
    assert report.to_dict()["pass_at_k"]["1"] == pytest.approx((0.5 + 1.0) / 2)
