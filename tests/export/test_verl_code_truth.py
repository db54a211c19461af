"""SPADE's ground truth with verl's common code format beside it: verl's own code scorers can read it.

The scorer below follows the call-based format of verl's `prime_code` (verl/utils/reward_score/prime_code, the
APPS format): `fn_name` names the function; `inputs[i]` holds one JSON value per line, one line per positional
argument; `outputs[i]` is the JSON of the return value; a test passes when the call's result equals it.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from spade.evaluate import load_suite
from spade.export.reward_fn import compute_score
from spade.groundtruth import ground_truth, task_from_ground_truth, verl_code_truth
from spade.records import TestCase

BUILTIN = load_suite("builtin")
SUM_EVENS = next(t for t in BUILTIN if t.task_id == "builtin/sum_evens")


def prime_code_call_based(solution: str, truth: str | dict[str, Any]) -> list[bool]:
    """One verdict per test, read the way verl's prime_code reads call-based ground truth."""
    cases = truth if isinstance(truth, dict) else json.loads(truth)
    namespace: dict[str, Any] = {}
    exec(solution, namespace)  # trusted reference solutions only, in this test
    method = namespace[cases["fn_name"]]
    verdicts = []
    for raw_in, raw_out in zip(cases["inputs"], cases["outputs"], strict=True):
        args = [json.loads(line) for line in raw_in.split("\n")]
        verdicts.append(method(*args) == json.loads(raw_out))
    return verdicts


def test_the_verl_code_ground_truth_is_read_by_a_prime_code_scorer_and_by_spades_own() -> None:
    truth = ground_truth(SUM_EVENS, verl_code=True)
    data = json.loads(truth)
    assert data["fn_name"] == "sum_evens"
    assert len(data["inputs"]) == len(SUM_EVENS.test_cases) + len(SUM_EVENS.hidden_test_cases)
    assert all(prime_code_call_based(SUM_EVENS.reference_solution, truth))
    assert not all(prime_code_call_based("def sum_evens(nums):\n    return sum(nums)\n", truth))
    # SPADE's keys are still there: the same string scores through SPADE's sandbox.
    assert task_from_ground_truth(truth).hidden_test_cases == SUM_EVENS.hidden_test_cases
    answer = f"```python\n{SUM_EVENS.reference_solution}\n```"
    assert compute_score("spade", answer, truth)["acc"] == 1.0


def test_every_builtin_reference_passes_its_own_verl_code_ground_truth() -> None:
    carried = [t for t in BUILTIN if verl_code_truth(t) is not None]
    assert len(carried) >= len(BUILTIN) // 2  # most tasks' values are plain JSON
    for task in carried:
        assert all(prime_code_call_based(task.reference_solution, verl_code_truth(task))), task.task_id


def test_multiple_arguments_go_one_per_line() -> None:
    task = replace(SUM_EVENS, test_cases=(TestCase(args=([1, 2], "x", {"k": None}), expected=[1.5, True]),),
                   hidden_test_cases=())
    truth = verl_code_truth(task)
    assert truth["inputs"] == ['[1, 2]\n"x"\n{"k": null}'] and truth["outputs"] == ["[1.5, true]"]


@pytest.mark.parametrize("value", [(1, 2), {1, 2}, {1: "a"}, float("nan"), float("inf")])
def test_values_json_cannot_carry_exactly_leave_spades_keys_only(value: Any) -> None:
    task = replace(SUM_EVENS, test_cases=(TestCase(args=([1],), expected=value),), hidden_test_cases=())
    assert verl_code_truth(task) is None
    if not isinstance(value, set):  # SPADE's own ground truth is JSON too
        assert "fn_name" not in json.loads(ground_truth(task, verl_code=True))
