"""What one grading request may ask of a real `spade serve`: no time limit past the server's cap, no more test runs
than serve.max_grade_runs, never every worker at once, nothing left running once its client has gone, and a
shutdown that ends within serve.shutdown_grace_s even with a long request in flight."""

from __future__ import annotations

import json
import os
import signal
import socket
import time

import pytest

from tests.sandbox.test_pool import _descendants
from tests.service.helpers import Service

TASK = {"task_id": "double", "description": "double it", "signature": "def double(x: int) -> int:",
        "difficulty": 0.4, "test_cases": [{"input": [2], "expected": 4}],
        "hidden_test_cases": [{"input": [5], "expected": 10}, {"input": [-1], "expected": -2}]}
GOOD = "def double(x):\n    return 2 * x\n"
SLOW = "def double(x):\n    import time\n    time.sleep(0.7)\n    return 2 * x\n"


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    config = {"executor": {"workers": 2, "memory_limit": "256m"}, "serve": {"max_grade_runs": 300}}
    svc = Service(tmp_path_factory.mktemp("grade"), config)
    yield svc
    svc.stop()


def test_a_task_cannot_raise_the_time_limit_past_the_servers_cap(service):
    task = {**TASK, "params": {"reference_cpu_s": 60}}  # x time_factor 10 = 600 s a test
    status, _, body = service.request("POST", "/v1/grade", {"task": task, "code": [GOOD]}, timeout=20)
    assert status == 400, body
    assert "'params.reference_cpu_s' = 60" in body["detail"] and "serve.max_run_timeout_s = 30" in body["detail"]
    within = {**TASK, "params": {"reference_cpu_s": 0.5}}
    status, _, body = service.request("POST", "/v1/grade", {"task": within, "code": [GOOD]})
    assert status == 200 and body["results"][0]["score"] == 1.0


def test_a_request_past_the_test_run_cap_is_refused_naming_it(service):
    tests = [{"input": [i], "expected": 2 * i} for i in range(50)]
    task = {**TASK, "hidden_test_cases": tests}  # 51 tests x 64 answers = 3264 runs, over 300
    status, _, body = service.request("POST", "/v1/grade", {"task": task, "code": [GOOD] * 64}, timeout=20)
    assert status == 413 and "serve.max_grade_runs = 300" in body["detail"], body
    status, _, body = service.request("POST", "/v1/grade", {"task": task, "code": [GOOD] * 5})
    assert status == 200 and [r["score"] for r in body["results"]] == [1.0] * 5
    assert len(json.dumps(body)) < 200_000


def _post_and_leave(svc: Service, payload: dict) -> socket.socket:
    data = json.dumps(payload).encode()
    sock = socket.create_connection((svc.host, svc.port), timeout=10)
    sock.sendall(b"POST /v1/grade HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "
                 + str(len(data)).encode() + b"\r\n\r\n" + data)
    return sock


def _running(svc: Service) -> int:
    return svc.request("GET", "/v1/status")[2]["running"]


def test_one_request_leaves_workers_free_and_stops_when_its_client_goes(service):
    sock = _post_and_leave(service, {"task": TASK, "code": [SLOW] * 24})  # ~50 s of work on one worker
    deadline = time.monotonic() + 10
    while not _running(service) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)
    started = time.monotonic()
    status, _, body = service.request("POST", "/run_code", {"code": "print(6 * 7)", "language": "python"},
                                      timeout=20)
    assert status == 200 and body["run_result"]["stdout"] == "42\n"
    assert time.monotonic() - started < 3, "a /run_code waited behind one grading request's answers"
    sock.close()  # the client goes away
    deadline = time.monotonic() + 6
    while _running(service) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _running(service) == 0, "the grading request kept running after its client left"
    cancelled = [line for line in service.log_lines() if line.get("path") == "/v1/grade"
                 and line.get("verdict") == "cancelled"]
    assert cancelled


def test_sigterm_ends_within_the_grace_with_a_long_request_in_flight(tmp_path):
    config = {"executor": {"workers": 1, "memory_limit": "256m", "timeout": 60},
              "serve": {"shutdown_grace_s": 2}}
    svc = Service(tmp_path, config)
    task = {**TASK, "params": {"reference_cpu_s": 2.5}}  # 25 s a test
    spin = "def double(x):\n    while True:\n        pass\n"
    sock = _post_and_leave(svc, {"task": task, "code": [spin] * 8})
    try:
        deadline = time.monotonic() + 10
        while not _running(svc) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)
        pids = [pid for pid, _ in _descendants(svc.proc.pid)]
        started = time.monotonic()
        svc.proc.send_signal(signal.SIGTERM)
        code = svc.proc.wait(timeout=15)
        took = time.monotonic() - started
    finally:
        sock.close()
        svc.stop()
    assert code == 128 + signal.SIGTERM and took < 2 + 3, (code, took)
    assert "stopped by SIGTERM" in svc.err_path.read_text()
    time.sleep(1.0)
    alive = [pid for pid in pids if os.path.exists(f"/proc/{pid}") and
             open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] != "Z"]
    assert not alive, alive  # the sandbox workers and their programs went with it
