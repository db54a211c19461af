"""`spade serve` under a trainer's reward workers: verl's own SandboxFusion client at its default concurrency
loses nothing (requests queue with a deadline instead of 429s, which it cannot retry), and a request that cannot
get a slot in time gets the 504 that SandboxFusion clients retry."""

from __future__ import annotations

import threading
import time

from spade.config import ServeConfig
from spade.service.runcode import RunCodeRequest, queue_wait_s
from tests.service.helpers import Service
from tests.service.test_run_code import ECHO_SUM, _verl_sandbox_fusion


def test_verls_reward_workers_at_their_default_concurrency_lose_nothing(tmp_path):
    verl = _verl_sandbox_fusion()
    svc = Service(tmp_path, {"executor": {"workers": 1, "memory_limit": "256m"}})
    try:
        url = f"{svc.url}/run_code"
        cases = 30  # verl runs a sample's cases on up to 32 threads: 4 workers x 30 at once
        io = {"inputs": [f"{i} {i}\n" for i in range(cases)], "outputs": [f"{2 * i}\n" for i in range(cases)]}
        results: dict[int, list] = {}

        def reward_worker(k: int) -> None:
            semaphore = threading.Semaphore(64)  # verl's sandbox_fusion.max_concurrent default, one per worker
            results[k] = verl.utils.check_correctness(url, io, ECHO_SUM, timeout=10, concurrent_semaphore=semaphore,
                                                      memory_limit_mb=256)[0]

        threads = [threading.Thread(target=reward_worker, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert sorted(results) == [0, 1, 2, 3]
        lost = sum(r is not True for rs in results.values() for r in rs)
        assert lost == 0, results
        counts = svc.request("GET", "/v1/status")[2]["requests"]
        assert not any(key.startswith("/run_code 429") for key in counts), counts
    finally:
        svc.stop()


def test_a_run_code_request_waits_at_most_its_compile_timeout_and_five_seconds():
    serve = ServeConfig()
    assert queue_wait_s(RunCodeRequest(code="", language="python", compile_timeout=10, run_timeout=10), serve) == 15
    assert queue_wait_s(RunCodeRequest(code="", language="python", compile_timeout=1e9), serve) == 60
    assert queue_wait_s(RunCodeRequest(code="", language="python", compile_timeout=float("nan")), serve) == 5


def test_no_slot_before_the_deadline_is_a_504_that_verl_retries(tmp_path):
    verl = _verl_sandbox_fusion()
    svc = Service(tmp_path, {"executor": {"workers": 1, "memory_limit": "256m"}, "serve": {"concurrency": 1}})
    try:
        hold = threading.Thread(target=lambda: svc.request(
            "POST", "/run_code", {"code": "import time\ntime.sleep(8)", "language": "python", "run_timeout": 10}))
        hold.start()
        time.sleep(0.5)
        started = time.monotonic()
        answer, error = verl.utils.call_sandbox_api(f"{svc.url}/run_code", "print(5)", None, 0, 3, 256, "python")
        took = time.monotonic() - started
        hold.join(30)
        assert error is None and answer["run_result"]["stdout"] == "5\n", (answer, error)
        assert took > 5  # it waited its 5 s, got a 504, and verl retried
        assert svc.request("GET", "/v1/status")[2]["requests"].get("/run_code 504") == 1
    finally:
        svc.stop()


def test_a_queued_request_whose_client_leaves_gives_its_place_up(tmp_path):
    import json
    import socket

    svc = Service(tmp_path, {"executor": {"workers": 1, "memory_limit": "256m"}, "serve": {"concurrency": 1}})
    try:
        hold = threading.Thread(target=lambda: svc.request(
            "POST", "/run_code", {"code": "import time\ntime.sleep(4)", "language": "python"}))
        hold.start()
        time.sleep(0.5)
        data = json.dumps({"code": "print('never wanted')", "language": "python"}).encode()
        sock = socket.create_connection((svc.host, svc.port), timeout=10)
        sock.sendall(b"POST /run_code HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "
                     + str(len(data)).encode() + b"\r\n\r\n" + data)
        deadline = time.monotonic() + 3
        while svc.request("GET", "/v1/status")[2]["waiting"] != 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert svc.request("GET", "/v1/status")[2]["waiting"] == 1
        sock.close()
        time.sleep(0.5)
        status = svc.request("GET", "/v1/status")[2]
        assert status["waiting"] == 0 and status["running"] == 1, status  # gone from the queue at once
        hold.join(30)
        assert svc.request("GET", "/v1/status")[2]["verdicts"] == {"cancelled": 1, "exited": 1}  # it never ran
    finally:
        svc.stop()
