"""`/v1/grade`, `/v1/env/draw` and `/v1/env/step` of a real `spade serve` on a code-reasoning run, against the
self-play surfaces' attacks: an answer nested past the sandbox codec's depth is a verdict in a 200 answer (never an
HTTP 500). Real server on 127.0.0.1, real sandbox."""

from __future__ import annotations

import signal
import time

import pytest

from spade.groundtruth import ground_truth
from spade.taskio import task_from_dict
from tests.service.helpers import Service, serving_run

CONFIG = {"executor": {"workers": 1, "memory_limit": "256m"}, "serve": {"max_grade_runs": 64},
          "generation": {"tasks_per_iteration": 4, "families": ["cr_abduction", "cr_deduction"]}}
COUNT = "def f(x):\n    return str(x).count('[')\n"
ABDUCTION = {"task_id": "count", "description": "Count brackets.", "signature": "def f(x)", "entry_point": "f",
             "difficulty": 0.3, "kind": "code_reasoning", "params": {"mode": "abduction"},
             "reference_solution": COUNT, "test_cases": [{"input": [[[3]]], "expected": 2}]}


def deep(levels: int) -> str:
    return "[" * levels + "3" + "]" * levels


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    yield from serving_run(tmp_path_factory, CONFIG)


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


def test_draw_hands_out_no_answers(live):
    status, _, body = live.request("POST", "/v1/env/draw", {"count": 4})
    assert status == 200, body
    families = {t["family"] for t in body["tasks"]}
    assert families <= {"cr_abduction", "cr_deduction"} and body["tasks"]
    for task in body["tasks"]:
        assert task["kind"] == "code_reasoning" and len(task["test_cases"]) == 1
        (case,) = task["test_cases"]
        if task["family"] == "cr_deduction":  # the output is the answer
            assert set(case) == {"input"}, case
        else:  # abduction: the input that made the output is an answer
            assert set(case) == {"expected"}, case
        assert "hidden_test_cases" not in task and "reference_solution" not in task


def test_env_step_is_bounded_like_grade(live):
    drawn: list = []
    for _ in range(5):  # a draw whose tasks the behaviour screen refused comes back short: draw again
        status, _, body = live.request("POST", "/v1/env/draw", {"count": 2})
        drawn += body["tasks"]
        if drawn:
            break
    task_id = drawn[0]["task_id"]
    status, _, body = live.request("POST", "/v1/env/step", {"task_ids": [task_id] * 65, "completions": ["1"] * 65})
    assert status == 413 and "serve.max_grade_runs = 64" in body["detail"], body
    status, _, body = live.request("POST", "/v1/env/step", {"task_ids": [task_id], "completions": ["1"],
                                                            "key": "k" * 2_000_000})
    assert status == 422, body
    status, _, body = live.request("POST", "/v1/env/step", {"task_ids": ["x" * 5000], "completions": ["1"]})
    assert status == 422, body
    status, _, body = live.request("POST", "/v1/env/step", {"task_ids": [task_id], "completions": ["1"], "key": "r1"})
    assert status == 200 and body["report"]["committed"] is True, body


def test_openrlhf_reward_answers_422_to_malformed_spade_ground_truth(live):
    label = ground_truth(task_from_dict(DOUBLE))
    ok = {"query": ["q" + RIGHT], "prompts": ["q"], "labels": [label]}
    status, _, body = live.request("POST", "/v1/openrlhf/reward", ok)
    assert status == 200 and body["scores"] == [1.0], body
    import json

    good = json.loads(label)
    for bad, field in (({"spade_ground_truth": 1}, "task_id"), (good | {"difficulty": "hard"}, "difficulty"),
                       (good | {"test_cases": 5}, "test_cases"), (good | {"entry_point": 3}, "entry_point"),
                       (good | {"hidden_test_cases": [{"input": 1}]}, "hidden_test_cases")):
        for sent in (bad, json.dumps(bad)):
            status, _, body = live.request("POST", "/v1/openrlhf/reward", ok | {"labels": [sent]})
            assert status == 422, (bad, body)
            assert body["detail"].startswith("labels[0]: ") and field in body["detail"] and "\n" not in body["detail"]


SLOW_CONFIG = {"executor": {"workers": 2, "memory_limit": "256m", "time_floor_s": 1.0},
               "serve": {"request_timeout_s": 3.0},
               "generation": {"tasks_per_iteration": 2, "families": ["list_transform"]}}


def test_env_step_stops_at_its_deadline_and_frees_its_slots(tmp_path):
    svc = Service(tmp_path, SLOW_CONFIG, args=("--run-dir", str(tmp_path / "run")))
    try:
        _, _, body = svc.request("POST", "/v1/env/draw", {"count": 1})
        task = body["tasks"][0]
        slow = f"```python\ndef {task['entry_point']}(*args):\n    while True:\n        pass\n```"
        started = time.monotonic()
        status, _, body = svc.request("POST", "/v1/env/step", {"task_ids": [task["task_id"]] * 40,
                                                               "completions": [slow] * 40})
        took = time.monotonic() - started
        assert status == 504 and "serve.request_timeout_s" in body["detail"], body
        assert took < 10, took  # 40 answers of a one-second limit each would hold the slots for 20 s or more
        started = time.monotonic()
        status, _, body = svc.request("POST", "/v1/grade", {"task": DOUBLE, "completions": [RIGHT]})
        assert status == 200 and time.monotonic() - started < 3, body
        status, _, body = svc.request("GET", "/v1/env/status")
        assert status == 200
    finally:
        assert svc.stop() == 128 + signal.SIGTERM


def test_a_step_whose_client_leaves_drops_its_pending_answers(tmp_path):
    import json
    import socket

    config = SLOW_CONFIG | {"serve": {"request_timeout_s": 120.0}}
    svc = Service(tmp_path, config, args=("--run-dir", str(tmp_path / "run")))
    try:
        _, _, body = svc.request("POST", "/v1/env/draw", {"count": 1})
        task = body["tasks"][0]
        slow = f"```python\ndef {task['entry_point']}(*args):\n    while True:\n        pass\n```"
        slows = [slow.replace("pass", f"x = {k}") for k in range(40)]  # distinct programs: none graded from another's
        data = json.dumps({"task_ids": [task["task_id"]] * 40, "completions": slows}).encode()
        sock = socket.create_connection((svc.host, svc.port))
        sock.sendall(b"POST /v1/env/step HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: " + str(len(data)).encode() + b"\r\n\r\n" + data)
        time.sleep(1.0)
        sock.close()  # the trainer gave up on its step
        started = time.monotonic()  # the next step grades on the environment's pool at once, not behind 39 answers
        quick = f"```python\ndef {task['entry_point']}(*args):\n    return 0\n```"
        status, _, body = svc.request("POST", "/v1/env/step", {"task_ids": [task["task_id"]], "completions": [quick]})
        assert status == 200 and body["report"]["committed"] is True, body
        assert time.monotonic() - started < 8  # 40 one-second answers would hold the workers for 20 s or more
    finally:
        assert svc.stop() == 128 + signal.SIGTERM
