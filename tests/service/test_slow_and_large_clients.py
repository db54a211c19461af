"""A real `spade serve` under slow and large clients: requests are read within a deadline and a byte budget before
they take an admission slot, so descriptors and memory stay bounded and probes keep answering."""

from __future__ import annotations

import resource
import socket
import threading
import time

from tests.service.helpers import Service

FD_LIMIT = 256


def _low_fd_limit() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (FD_LIMIT, FD_LIMIT))


def _health(svc: Service) -> int:
    try:
        return svc.request("GET", "/health", timeout=2)[0]
    except OSError:
        return 0


def _slow_client(svc: Service, k: int) -> socket.socket:
    """Half stall inside their headers, half inside their bodies."""
    sock = socket.create_connection((svc.host, svc.port), timeout=5)
    if k % 2:
        sock.sendall(b"POST /run_code HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n")
    else:
        sock.sendall(b"POST /run_code HTTP/1.1\r\nHost: x\r\nContent-Length: 4000\r\n\r\n{\"code\": \"")
    return sock


def test_slow_clients_are_cut_off_and_cannot_exhaust_descriptors(tmp_path):
    config = {"executor": {"workers": 1, "memory_limit": "256m"}, "serve": {"read_timeout_s": 1.0}}
    svc = Service(tmp_path, config, preexec_fn=_low_fd_limit)
    socks = []
    try:
        baseline = svc.open_fds()
        for k in range(int(FD_LIMIT * 1.5)):  # more than the server can hold open
            try:
                socks.append(_slow_client(svc, k))
            except OSError:
                break
        deadline = time.monotonic() + 6
        while _health(svc) != 200 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _health(svc) == 200, "the service stopped answering its probe under slow clients"
        time.sleep(1.5)  # past the read deadline: every slow connection has been closed by the server
        assert svc.open_fds() <= baseline + 10, (baseline, svc.open_fds())
        status, _, body = svc.request("POST", "/run_code", {"code": "print(6 * 7)", "language": "python"})
        assert status == 200 and body["run_result"]["stdout"] == "42\n"
    finally:
        for sock in socks:
            sock.close()
        svc.stop()
    err = svc.err_path.read_text()
    assert "Traceback" not in err and len(err) < 64_000, err[-2000:]


def test_a_body_slower_than_the_read_deadline_gets_408(tmp_path):
    svc = Service(tmp_path, {"executor": {"workers": 1}, "serve": {"read_timeout_s": 1.0}})
    try:
        sock = socket.create_connection((svc.host, svc.port), timeout=10)
        sock.sendall(b"POST /run_code HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 100\r\n\r\n{\"code\": ")
        started = time.monotonic()
        answer = b""
        while chunk := sock.recv(4096):  # to the end: the server closes the connection after its answer
            answer += chunk
        assert answer.startswith(b"HTTP/1.1 408") and b"serve.read_timeout_s" in answer, answer
        assert time.monotonic() - started < 3
        sock.close()
    finally:
        svc.stop()


def test_large_bodies_at_once_stay_within_the_buffered_bytes_budget(tmp_path):
    size, clients = 1_900_000, 40
    config = {"executor": {"workers": 1}, "serve": {"max_body_bytes": 2 << 20, "max_buffered_bytes": 8 << 20,
                                                      "read_timeout_s": 30}}
    svc = Service(tmp_path, config)
    body = b'{"code": "#' + b"x" * (size - 40) + b'", "language": "nope"}'
    statuses: list[int] = []
    barrier = threading.Barrier(clients, timeout=20)

    def client() -> None:
        sock = socket.create_connection((svc.host, svc.port), timeout=20)
        try:
            sock.sendall(b"POST /run_code HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                         b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n")
            for step in (lambda: sock.sendall(body[:-1]), barrier.wait, lambda: sock.sendall(body[-1:])):
                try:  # every body but its last byte is out before any completes (a refused one is closed early)
                    step()
                except (OSError, threading.BrokenBarrierError):
                    barrier.abort()
            answer = sock.recv(64)
            statuses.append(int(answer.split()[1]) if answer.startswith(b"HTTP/1.1") else 0)
        finally:
            sock.close()

    try:
        before = svc.memory_kb("VmRSS")
        threads = [threading.Thread(target=client) for _ in range(clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        grown_mb = (svc.memory_kb("VmHWM") - before) / 1024
        assert 503 in statuses and set(statuses) <= {503, 422}, statuses
        assert grown_mb < 40, f"peak memory grew {grown_mb:.0f} MB for {clients} bodies of {size} bytes"
        assert svc.request("GET", "/health")[0] == 200
    finally:
        svc.stop()
