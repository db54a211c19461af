"""`/v1/grade`, `/v1/env/draw` and `/v1/env/step` of a real `spade serve` on a code-reasoning run, against the
self-play surfaces' attacks: an answer nested past the sandbox codec's depth is a verdict in a 200 answer (never an
HTTP 500). Real server on 127.0.0.1, real sandbox."""

from __future__ import annotations

import signal

import pytest

from tests.service.helpers import Service

CONFIG = {"executor": {"workers": 1, "memory_limit": "256m"},
          "generation": {"tasks_per_iteration": 4, "families": ["cr_abduction", "cr_deduction"]}}
COUNT = "def f(x):\n    return str(x).count('[')\n"
ABDUCTION = {"task_id": "count", "description": "Count brackets.", "signature": "def f(x)", "entry_point": "f",
             "difficulty": 0.3, "kind": "code_reasoning", "params": {"mode": "abduction"},
             "reference_solution": COUNT, "test_cases": [{"input": [[[3]]], "expected": 2}]}


def deep(levels: int) -> str:
    return "[" * levels + "3" + "]" * levels


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("live")
    svc = Service(tmp, CONFIG, args=("--run-dir", str(tmp / "run")))
    yield svc
    assert svc.stop() == 128 + signal.SIGTERM


def test_grade_answers_an_answer_past_the_codecs_depth_with_a_verdict(live):
    answers = ["[[1]]) == 2", f"{deep(65)}) == 3", f"{deep(64)}) == 3"]  # 65: the repro, 146 bytes with `assert f(`
    status, _, body = live.request("POST", "/v1/grade", {"task": ABDUCTION, "completions": answers, "prefilled": True})
    assert status == 200, body
    assert [r["score"] for r in body["results"]] == [1.0, 0.0, 0.0]


def test_env_step_answers_an_answer_past_the_codecs_depth_with_a_verdict(live):
    status, _, body = live.request("POST", "/v1/env/draw", {"count": 4})
    assert status == 200, body
    ids = [t["task_id"] for t in body["tasks"]]
    status, _, stepped = live.request("POST", "/v1/env/step", {"task_ids": ids, "prefilled": True,
                                                               "completions": [f"{deep(65)}) == 3"] * len(ids)})
    assert status == 200, stepped
    assert stepped["report"]["committed"] is True
    assert all(r["status"] != "passed" and r["reward"]["pass_fraction"] == 0.0 for r in stepped["results"])


DOUBLE = {"task_id": "double", "description": "double it", "signature": "def double(x: str) -> str:",
          "difficulty": 0.4, "test_cases": [{"input": ["ab"], "expected": "abab"}]}
RIGHT = "```python\ndef double(x):\n    return 2 * x\n```\n"


def test_grade_answers_a_lone_surrogate_in_the_task_id_or_a_test_value_without_a_500(live):
    status, _, body = live.request("POST", "/v1/grade", {"task": DOUBLE | {"task_id": "double\ud800"},
                                                         "completions": [RIGHT]})
    assert status == 200, body
    assert body["task_id"] == "double\ufffd" and body["results"][0]["score"] == 1.0
    for case in ({"input": ["\ud800"], "expected": "\ud800\ud800"}, {"input": ["a"], "expected": "a\udfff"}):
        status, _, body = live.request("POST", "/v1/grade", {"task": DOUBLE | {"test_cases": [case]},
                                                             "completions": [RIGHT]})
        assert status == 422, body
        assert "lone surrogate" in body["detail"] and "test_cases[0]" in body["detail"] and "\n" not in body["detail"]
