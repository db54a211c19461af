"""`/v1/grade` and `/v1/env/step` of a real `spade serve` on hostile text: lone surrogates (JSON's escapes spell
them) in completions, code, the task and the model name, and a sum too long for Python's parser, are verdicts in a
200 answer, never an HTTP 500; a correct completion in the same request still scores 1.0."""

from __future__ import annotations

import pytest

from tests.service.helpers import serving_run

CONFIG = {"executor": {"workers": 1, "memory_limit": "256m"},
          "generation": {"tasks_per_iteration": 2, "families": ["list_aggregate"]}}
TASK = {"task_id": "double", "description": "double it \ud800", "signature": "def double(x: int) -> int:",
        "difficulty": 0.4, "test_cases": [{"input": [2], "expected": 4}],
        "hidden_test_cases": [{"input": [5], "expected": 10}, {"input": [-1], "expected": -2}]}
RIGHT = "```python\ndef double(x):\n    return 2 * x\n```\n"


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    yield from serving_run(tmp_path_factory, CONFIG)


def test_grade_answers_hostile_text_with_verdicts(live):
    completions = [RIGHT, RIGHT + "\ud800 prose", "```python\ndef double(x):\n    return x" + "+0" * 3000 + "\n```",
                   "```python\ndef double(x):\n    return 2 * x  # \udfff\n```"]
    status, _, body = live.request("POST", "/v1/grade", {"task": TASK, "completions": completions})
    assert status == 200, body
    assert [r["score"] for r in body["results"]] == [1.0, 1.0, 0.0, 1.0]
    assert body["results"][2]["code"] == "" and body["results"][2]["reward"]["format_penalty"] > 0
    code = ["def double(x):\n    return 2 * x  # \ud800\n"]
    status, _, body = live.request("POST", "/v1/grade", {"task": TASK, "code": code})
    assert status == 200 and body["results"][0]["score"] == 1.0, body


def test_env_step_records_hostile_text(live):
    status, _, body = live.request("POST", "/v1/env/draw", {"count": 1})
    assert status == 200, body
    ids = [body["tasks"][0]["task_id"]] * 2
    status, _, stepped = live.request("POST", "/v1/env/step", {"task_ids": ids, "model": "m\ud800" + "x" * 100_000,
                                                               "completions": ["\ud800", "```python\n# \udfff\n```"]})
    assert status == 200, stepped
    assert stepped["report"]["committed"] is True
