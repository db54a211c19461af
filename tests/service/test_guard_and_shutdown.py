"""Auth, body limits and graceful shutdown of a real `spade serve` on 127.0.0.1."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

from spade.config import SpadeConfig
from spade.errors import ConfigError
from spade.service.command import is_loopback, resolved, token_for
from tests.service.helpers import ROOT, Service

SMALL = {"executor": {"workers": 1, "memory_limit": "256m"}}


@pytest.fixture(scope="module")
def guarded(tmp_path_factory):
    config = {**SMALL, "serve": {"auth": "on", "token_env": "SPADE_TEST_TOKEN", "max_body_bytes": 4096}}
    svc = Service(tmp_path_factory.mktemp("guarded"), config, env={"SPADE_TEST_TOKEN": "s3cret-token"})
    yield svc
    svc.stop()


RUN = {"code": "print(1)", "language": "python"}


def test_requests_without_the_right_bearer_token_are_refused(guarded):
    status, headers, body = guarded.request("POST", "/run_code", RUN)
    assert status == 401 and headers["www-authenticate"] == "Bearer" and "bearer token" in body["detail"]
    assert guarded.request("POST", "/run_code", RUN, {"Authorization": "Bearer wrong"})[0] == 401
    assert guarded.request("GET", "/v1/status", None, {"Authorization": "s3cret-token"})[0] == 401
    status, _, body = guarded.request("POST", "/run_code", RUN, {"Authorization": "Bearer s3cret-token"})
    assert status == 200 and body["run_result"]["stdout"] == "1\n"
    assert guarded.request("GET", "/health")[0] == 200  # probes need no token
    assert guarded.request("GET", "/v1/ping")[0] == 200


def test_a_body_over_the_limit_is_refused_by_length_and_while_streaming(guarded):
    auth = {"Authorization": "Bearer s3cret-token"}
    big = {"code": "#" + "x" * 5000, "language": "python"}
    status, _, body = guarded.request("POST", "/run_code", big, auth)
    assert status == 413 and "max_body_bytes" in body["detail"]
    # Streamed in chunks with no length: the server answers 413 once the cap is passed and may close before the
    # client has sent the rest, so the chunks go out over a raw socket whose send may fail, then the answer is read.
    sock = socket.create_connection((guarded.host, guarded.port), timeout=60)
    head = ("POST /run_code HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Authorization: {auth['Authorization']}\r\nTransfer-Encoding: chunked\r\n\r\n").encode()
    try:
        sock.sendall(head)
        for chunk in (b'{"code": "#', b"x" * 3000, b"y" * 3000, b'"}'):
            sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        sock.sendall(b"0\r\n\r\n")
    except (BrokenPipeError, ConnectionResetError):
        pass  # refused mid-body, as it should be: the answer is already on its way
    answer = sock.makefile("rb").readline()
    sock.close()
    assert answer.split()[1] == b"413", answer


def test_auth_is_on_by_default_beyond_loopback_and_needs_a_token():
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("10.1.2.3")
    wide = SpadeConfig.model_validate({"serve": {"host": "0.0.0.0"}})
    assert token_for(wide, {"SPADE_SERVE_TOKEN": "t"}) == "t"
    with pytest.raises(ConfigError, match="SPADE_SERVE_TOKEN"):
        token_for(wide, {})
    assert token_for(SpadeConfig(), {}) is None
    assert token_for(wide.model_copy(update={"serve": wide.serve.model_copy(update={"auth": "off"})}), {}) is None


def test_serve_reads_the_worker_count_once(monkeypatch):
    """Under executor.workers 0 every read asks the cgroup limit; the admission cap, the banner and the pool must
    agree, so serve fixes the count once."""
    import spade.cpus

    counts = iter(range(3, 100))
    monkeypatch.setattr(spade.cpus, "usable_cores", lambda: next(counts))
    cfg = SpadeConfig.model_validate({"executor": {"workers": 0}})
    assert cfg.executor.worker_count != cfg.executor.worker_count  # the raw config reads again each time
    fixed = resolved(cfg, "127.0.0.1", 0)
    assert fixed.executor.workers == fixed.executor.worker_count == fixed.executor.worker_count
    assert (fixed.serve.host, fixed.serve.port) == ("127.0.0.1", 0)
    assert resolved(SpadeConfig.model_validate({"executor": {"workers": 2}}), None, None).executor.workers == 2


def test_binding_beyond_loopback_without_a_token_is_one_line_and_exit_2():
    env = {k: v for k, v in os.environ.items() if k != "SPADE_SERVE_TOKEN"}
    done = subprocess.run([sys.executable, "-m", "spade", "serve", "--host", "0.0.0.0", "--port", "0"],
                          capture_output=True, text=True, env={**env, "PYTHONPATH": str(ROOT)}, cwd=ROOT, timeout=60)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "SPADE_SERVE_TOKEN" in done.stderr


def test_sigterm_finishes_in_flight_work_then_refuses_and_exits(tmp_path):
    svc = Service(tmp_path, SMALL)
    answers = {}
    slow = threading.Thread(target=lambda: answers.update(slow=svc.request(
        "POST", "/run_code", {"code": "import time\ntime.sleep(1.5)\nprint('finished')", "language": "python"})))
    slow.start()
    time.sleep(0.5)
    svc.proc.send_signal(signal.SIGTERM)
    slow.join(30)
    status, _, body = answers["slow"]
    assert status == 200 and body["run_result"]["stdout"] == "finished\n", body
    assert svc.stop() == 128 + signal.SIGTERM
    with pytest.raises(OSError):
        svc.request("GET", "/health", timeout=2)
    assert any(line.get("path") == "/run_code" and line.get("status") == 200 for line in svc.log_lines())
    assert "stopped by SIGTERM" in svc.err_path.read_text()
