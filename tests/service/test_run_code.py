"""`spade serve` as verl's sandbox_fusion path sees it: a real service on 127.0.0.1, a client written from
SandboxFusion's documented request/response, SandboxFusion's verdicts on correct, wrong, crashing, timing-out and
memory-hungry programs; its error shapes; overload (429 + Retry-After, nothing lost or duplicated); a sandbox
worker killed mid-request (that request a SandboxError, the service keeps serving)."""

from __future__ import annotations

import base64
import os
import signal
import threading
import time

import pytest

from tests.sandbox.test_pool import _descendants
from tests.service.helpers import SandboxFusionClient, Service

CONFIG = {"executor": {"workers": 2, "memory_limit": "256m"},
          "serve": {"concurrency": 2, "queue_limit": 2, "max_run_timeout_s": 10, "max_memory_mb": 256}}
ECHO_SUM = "import sys\nprint(sum(map(int, sys.stdin.read().split())))\n"


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    svc = Service(tmp_path_factory.mktemp("serve"), CONFIG)
    yield svc
    assert svc.stop() == 128 + signal.SIGTERM


PROGRAMS = {  # name: (code, stdin, expected output, verl's verdict under SandboxFusion semantics)
    "correct": (ECHO_SUM, "1 2 3\n", "6\n", True),
    "correct_without_trailing_newline": ("import sys\nsys.stdout.write(input()[::-1])\n", "abc\n", "cba\n", True),
    "wrong": (ECHO_SUM, "1 2 3\n", "7\n", False),
    "crashing": ("def f(n):\n    return f(n) + 1\nf(1)\n", "", "", -2),
    "nonzero_exit": ("import sys\nprint('4')\nsys.exit(2)\n", "", "4\n", -2),
    "syntax_error": ("print(1\n", "", "1\n", -2),
    "timing_out": ("while True:\n    pass\n", "", "", -3),
    "sleeping": ("import time\ntime.sleep(30)\n", "", "", -3),
    "memory_hungry": ("x = bytearray(600 << 20)\nprint(len(x))\n", "", "629145600\n", -2),
    "network": ("import urllib.request\nprint(urllib.request.urlopen('http://127.0.0.1:1').read())\n", "", "", -2),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_sandbox_fusion_verdicts(service, name):
    code, stdin, expected, verdict = PROGRAMS[name]
    assert SandboxFusionClient(service).check(code, stdin, expected, timeout=1) == verdict


def test_the_response_has_sandbox_fusion_s_fields_and_statuses(service):
    client = SandboxFusionClient(service)
    ok, _ = client.call("import sys\nprint(input())\nprint('e', file=sys.stderr)\n", "hi\n")
    assert set(ok) == {"status", "message", "compile_result", "run_result", "executor_pod_name", "files"}
    assert ok["status"] == "Success" and ok["message"] == "" and ok["compile_result"] is None and ok["files"] == {}
    run = ok["run_result"]
    assert set(run) == {"status", "execution_time", "return_code", "stdout", "stderr"}
    assert (run["status"], run["return_code"], run["stdout"], run["stderr"]) == ("Finished", 0, "hi\n", "e\n")
    assert 0 < run["execution_time"] < 1
    tle, _ = client.call("while True: pass\n", "", timeout=0.5)
    assert tle["status"] == "Failed" and tle["run_result"]["status"] == "TimeLimitExceeded"
    assert tle["run_result"]["return_code"] is None and tle["run_result"]["execution_time"] >= 0.5
    mem, _ = client.call("x = bytearray(600 << 20)\n", "", memory_limit_mb=128)
    assert mem["status"] == "Failed" and mem["run_result"]["return_code"] == 1
    assert "MemoryError" in mem["run_result"]["stderr"]


def test_other_languages_get_sandbox_fusion_s_error_shapes(service):
    status, _, body = service.request("POST", "/run_code", {"code": "int main(){}", "language": "cpp"})
    assert status == 200 and body["status"] == "SandboxError" and "only 'python'" in body["message"]
    assert body["run_result"] is None and body["compile_result"] is None
    status, _, body = service.request("POST", "/run_code", {"code": "x", "language": "cobol"})
    assert status == 422 and body["detail"][0]["loc"] == ["body", "language"]
    status, _, body = service.request("POST", "/run_code", {"language": "python"})
    assert status == 422 and body["detail"][0]["loc"] == ["body", "code"]


def test_files_are_placed_beside_the_program_and_fetch_files_is_refused(service):
    files = {"data/in.txt": base64.b64encode(b"5 6").decode(), "skipped.txt": None}
    code = "import os\nprint(sum(map(int, open('data/in.txt').read().split())), os.path.exists('skipped.txt'))\n"
    status, _, body = service.request("POST", "/run_code", {"code": code, "language": "python", "files": files})
    assert status == 200 and body["run_result"]["stdout"] == "11 False\n", body
    for bad in ({"files": {"../x": "eA=="}}, {"files": {"a": "not base64!"}}, {"fetch_files": ["a"]}):
        status, _, body = service.request("POST", "/run_code", {"code": "pass", "language": "python", **bad})
        assert status == 200 and body["status"] == "SandboxError" and body["message"], (bad, body)


def test_health_ping_status_and_metrics(service):
    assert service.request("GET", "/health")[2] == {"status": "ok"}
    assert service.request("GET", "/v1/ping")[2] == "pong"
    status = service.request("GET", "/v1/status")[2]
    assert status["workers"] == 2 and status["concurrency"] == 2 and status["layers"]["seccomp"] is True
    assert status["auth"] is False
    text = service.request("GET", "/metrics")[2]
    assert 'spade_requests_total{route="/run_code",status="200"}' in text
    assert 'spade_verdicts_total{verdict="exited"}' in text and "spade_request_seconds_bucket" in text
    logged = [line for line in service.log_lines() if line.get("event") == "request"]
    assert logged and {"ts", "level", "id", "method", "path", "status", "ms", "verdict"} <= set(logged[-1])


def test_overload_answers_429_with_retry_after_and_loses_nothing(service):
    """2 slots and 2 places in the queue: of 12 simultaneous slow requests some are refused; every accepted one
    comes back with its own output."""
    code = "import sys, time\nn = int(input())\ntime.sleep(1.5)\nprint(n * n)\n"
    answers: dict[int, tuple[int, dict, object]] = {}
    barrier = threading.Barrier(12)

    def one(i: int) -> None:
        barrier.wait()
        answers[i] = service.request("POST", "/run_code", {"code": code, "stdin": f"{i}\n", "language": "python"})

    threads = [threading.Thread(target=one, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(answers) == list(range(12))
    statuses = sorted(status for status, _, _ in answers.values())
    assert set(statuses) == {200, 429}, statuses
    assert 4 <= statuses.count(200) <= 8  # two running, two queued (plus any that arrived as slots freed)
    for i, (status, headers, body) in answers.items():
        if status == 429:
            assert int(headers["retry-after"]) >= 1 and "queue is full" in body["detail"]
        else:
            assert body["run_result"]["stdout"] == f"{i * i}\n", body


def test_a_worker_killed_on_both_tries_of_a_request_gives_a_sandbox_error_and_the_service_keeps_serving(service):
    result = {}
    sleeper = threading.Thread(target=lambda: result.update(
        answer=service.request("POST", "/run_code", {"code": "import time\ntime.sleep(5)\n", "language": "python"})))
    sleeper.start()
    for _ in range(200):  # until the request holds a slot, so its job is on a worker
        if service.request("GET", "/v1/status")[2]["running"]:
            break
        time.sleep(0.05)
    time.sleep(0.5)
    workers = _top_workers(service)
    assert len(workers) == 2, workers
    for pid in workers:
        os.killpg(pid, signal.SIGKILL)  # each worker runs in its own session and process group
    # The job runs once more on the dead worker's successor (a stall under load is not its verdict): kill it too.
    deadline = time.monotonic() + 30
    while not (successors := set(_top_workers(service)) - set(workers)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert successors
    time.sleep(1.0)
    for pid in successors:
        os.killpg(pid, signal.SIGKILL)
    sleeper.join(30)
    status, _, body = result["answer"]
    assert status == 200 and body["status"] == "SandboxError" and body["run_result"]["status"] == "Error", body
    assert SandboxFusionClient(service).check(ECHO_SUM, "2 2", "4") is True


def _top_workers(service) -> list[int]:
    """The service's sandbox workers: the bwrap processes it started itself (a process gone meanwhile is none)."""
    found = []
    for pid, _ in _descendants(service.proc.pid):
        try:
            if open(f"/proc/{pid}/comm").read().strip() == "bwrap" and _is_top_bwrap(pid, service.proc.pid):
                found.append(pid)
        except OSError:
            continue
    return found


def _is_top_bwrap(pid: int, server: int) -> bool:
    ppid = int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
    return ppid == server


TASK = {"task_id": "double", "description": "double it", "signature": "def double(x: int) -> int:",
        "difficulty": 0.4, "test_cases": [{"input": [2], "expected": 4}],
        "hidden_test_cases": [{"input": [5], "expected": 10}, {"input": [-1], "expected": -2}]}


def test_grade_scores_completions_with_the_loops_reward(service):
    from spade.config import RewardConfig
    from spade.records import ExecResult, ExecStatus, TestOutcome, TestStatus
    from spade.reward import compute_reward
    from spade.taskio import task_from_dict

    completions = ["Here:\n```python\ndef double(x):\n    return 2 * x\n```\n",
                   "```python\ndef double(x):\n    return {2: 4}.get(x, 0)\n```",  # hard-codes the public test
                   "no code at all",
                   "```python\nimport os\ndef double(x):\n    os.system('true')\n    return 2 * x\n```"]
    status, _, body = service.request("POST", "/v1/grade", {"task": TASK, "completions": completions})
    assert status == 200 and body["task_id"] == "double"
    good, hacked, empty, shell = body["results"]
    assert good["status"] == "passed" and good["score"] == 1.0 and good["code"].startswith("def double")
    task = task_from_dict(TASK)
    tests = tuple(TestOutcome(i, i > 0, TestStatus.PASSED) for i in range(3))
    local = compute_reward(task, good["code"], ExecResult(ExecStatus.PASSED, tests, good["cpu_time_s"], 0, 0.0),
                           RewardConfig())
    assert good["reward"]["total"] == local.total
    assert hacked["public_score"] == 1.0 and hacked["hidden_score"] == 0.0
    assert hacked["reward"]["hardcoding_suspected"] is True
    assert [t["status"] for t in hacked["tests"]] == ["passed", "wrong_answer", "wrong_answer"]
    assert empty["code"] == "" and empty["reward"]["format_penalty"] > 0
    assert "screen:shell" in shell["events"] and shell["reward"]["interference_penalty"] > 0  # as the loop screens
    assert "expected" not in str(body)  # verdicts only: expected values stay on the host's side


def test_grade_refuses_a_broken_task_or_request_in_one_line(service):
    status, _, body = service.request("POST", "/v1/grade", {"task": {"task_id": "x"}, "code": ["pass"]})
    assert status == 422 and isinstance(body["detail"], str) and "\n" not in body["detail"]
    status, _, body = service.request("POST", "/v1/grade", {"task": TASK})
    assert status == 422 and "exactly one of completions or code" in str(body["detail"])


def _verl_sandbox_fusion():
    """verl's own sandbox_fusion reward module (verl 0.9.1, installed --no-deps by .ci/run into the venv's
    verl-client folder), loaded by path: it needs only requests, and verl's package root would pull in torch."""
    import importlib.util
    import sys
    from pathlib import Path

    folder = Path(sys.prefix) / "verl-client" / "verl" / "utils" / "reward_score" / "sandbox_fusion"
    if not (folder / "utils.py").is_file():
        pytest.skip(f"verl's client is not at {folder}: pip install --no-deps --target {sys.prefix}/verl-client "
                    "verl==0.9.1 (as .ci/run does)")
    name = "_verl_sandbox_fusion"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, folder / "__init__.py",
                                                      submodule_search_locations=[str(folder)])
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def test_verls_own_sandbox_fusion_client_gets_its_verdicts_from_spade_serve(service):
    verl = _verl_sandbox_fusion()
    url = f"{service.url}/run_code"
    io = {"inputs": ["1 2\n", "40 2\n"], "outputs": ["3\n", "42\n"]}
    cases = {  # program -> verl's per-case results
        ECHO_SUM: [True, True],
        "print(0)\n": [False, False],
        "import sys\nsys.exit(int(input().split()[0]))\n": [-2, -2],
        "while True:\n    pass\n": [-3, -3],
        "x = bytearray(600 << 20)\n": [-2, -2],
    }
    for code, expected in cases.items():
        results, metadata = verl.utils.check_correctness(url, io, code, timeout=1, memory_limit_mb=256)
        assert results == expected, (code, metadata)
    # verl's function-call format (inputs one JSON argument a line, fn_name), as `spade export --verl-code-truth`
    calls = {"inputs": ["[3, 1, 2]\n2", "[5]\n0"], "outputs": ["3", "5"], "fn_name": "kth"}
    solution = "def kth(xs, k):\n    return sorted(xs)[k]\n"
    assert verl.utils.check_correctness(url, calls, solution, timeout=5)[0] == [True, True]
    score, _ = verl.compute_score(url, None, 256, f"```python\n{solution}```", calls, timeout=5)
    assert score == 1.0


@pytest.mark.parametrize("run_timeout", [1e-4, 1e-5, 1e-7])
def test_a_run_timeout_shorter_than_start_up_is_a_time_limit_and_keeps_the_workers(service, run_timeout):
    workers = sorted(_top_workers(service))
    status, _, body = service.request("POST", "/run_code", {"code": "print(1)", "language": "python",
                                                            "run_timeout": run_timeout})
    assert status == 200 and body["status"] == "Failed", body
    assert body["run_result"]["status"] == "TimeLimitExceeded", body
    assert sorted(_top_workers(service)) == workers  # no worker was killed or replaced
    assert SandboxFusionClient(service).check(ECHO_SUM, "2 3", "5") is True


def test_numpy_is_importable_as_in_sandbox_fusions_python_runtime(service):
    code = ("import sys\nimport numpy as np\nn = int(sys.stdin.read())\na = np.arange(n * n, dtype=float).reshape(n, n)\n"
            "print(int(a.sum()), round(float(np.linalg.det(a + np.eye(n) * n * n)), 3) > 0)\n")
    assert SandboxFusionClient(service).check(code, "3", "36 True", timeout=10) is True
    status, _, body = service.request("POST", "/run_code", {"code": "import numpy, os\nopen(os.path.join("
                                                            "os.path.dirname(numpy.__file__), 'x'), 'w')",
                                                            "language": "python"})
    assert status == 200 and body["status"] == "Failed" and "Read-only file system" in body["run_result"]["stderr"]
