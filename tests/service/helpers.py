"""A real `spade serve` process on 127.0.0.1, and a SandboxFusion client written from its documented contract.

`Service`: starts `python -m spade serve --port 0` with a config, waits for its "listening on" line, and stops it
with a signal. `SandboxFusionClient`: posts what verl's sandbox_fusion reward path posts (code, stdin, language,
compile_timeout, run_timeout, memory_limit_MB, files {}, fetch_files []), retries a 504 as verl does, and reads
the answer the way verl's check_correctness does: True (Success, stdout equal up to trailing newlines), False
(Success, other output), -1 (API or sandbox error), -2 (runtime error), -3 (timeout), -4 (compile error).
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

ROOT = Path(__file__).resolve().parents[2]


class Service:
    def __init__(self, tmp: Path, config: dict[str, Any], env: dict[str, str] | None = None,
                 host: str = "127.0.0.1", args: tuple[str, ...] = (), preexec_fn: Any = None) -> None:
        path = tmp / "serve.yaml"
        path.write_text(yaml.safe_dump(config))
        self.err_path = tmp / "serve.err"
        environ = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
        self.proc = subprocess.Popen([sys.executable, "-m", "spade", "serve", "--host", host, "--port", "0",
                                      "--config", str(path), *args], stdout=subprocess.PIPE, stderr=self.err_path.open("w"),
                                     env=environ, cwd=ROOT, text=True, preexec_fn=preexec_fn)
        line = self.proc.stdout.readline()  # the announcement, once the pool is up (or EOF if it failed)
        if "listening on" not in line:
            self.proc.wait(timeout=30)
            raise RuntimeError(f"spade serve did not start: {line!r} {self.err_path.read_text()[-2000:]}")
        self.url = line.split("listening on ", 1)[1].split()[0]
        parts = urlsplit(self.url)
        self.host, self.port = parts.hostname, parts.port

    def connection(self, timeout: float = 60.0) -> http.client.HTTPConnection:
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout)

    def request(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None,
                timeout: float = 60.0) -> tuple[int, dict[str, str], Any]:
        """One request on a fresh connection: (status, headers, parsed JSON or text)."""
        conn = self.connection(timeout)
        try:
            data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
            conn.request(method, path, body=data, headers={"Content-Type": "application/json", **(headers or {})})
            resp = conn.getresponse()
            raw = resp.read()
            kind = resp.getheader("content-type", "")
            return resp.status, dict(resp.getheaders()), json.loads(raw) if "json" in kind else raw.decode()
        finally:
            conn.close()

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 60.0) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=timeout)
        finally:
            self.proc.stdout.close()

    def open_fds(self) -> int:
        return len(os.listdir(f"/proc/{self.proc.pid}/fd"))

    def memory_kb(self, field: str = "VmHWM") -> int:
        """The server's peak (VmHWM) or current (VmRSS) resident memory."""
        for line in open(f"/proc/{self.proc.pid}/status"):
            if line.startswith(field + ":"):
                return int(line.split()[1])
        raise RuntimeError(f"no {field} for {self.proc.pid}")

    def log_lines(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.err_path.read_text().splitlines() if line.startswith("{")]


class SandboxFusionClient:
    RETRIES = 3

    def __init__(self, service: Service) -> None:
        self.service = service

    def call(self, code: str, stdin: str, timeout: float = 10, language: str = "python",
             memory_limit_mb: int = 1024) -> tuple[dict[str, Any] | None, str | None]:
        payload = {"compile_timeout": timeout, "run_timeout": timeout, "code": code, "stdin": stdin,
                   "language": language, "memory_limit_MB": memory_limit_mb, "files": {}, "fetch_files": []}
        error = None
        for attempt in range(self.RETRIES):
            status, _, body = self.service.request("POST", "/run_code", payload, timeout=2 * timeout + 10)
            if status == 504:
                error = "gateway timeout"
                time.sleep(0.2 * (attempt + 1))
                continue
            if status != 200:
                return None, f"HTTP {status}: {body}"
            return body, None
        return None, error

    def check(self, code: str, stdin: str, expected: str, timeout: float = 10, **kw: Any) -> bool | int:
        answer, error = self.call(code, stdin, timeout, **kw)
        if error is not None or answer is None:
            return -1
        status, compiled, ran = answer.get("status"), answer.get("compile_result"), answer.get("run_result")
        if status == "SandboxError":
            return -1
        if status == "Failed":
            if compiled and (compiled.get("status") != "Finished" or compiled.get("return_code") != 0):
                return -4
            if not ran:
                return -1
            if ran.get("status") == "TimeLimitExceeded":
                return -3
            if ran.get("status") == "Error" or ran.get("return_code") != 0:
                return -2
            return -1
        if status == "Success" and ran and ran.get("status") == "Finished":
            return (ran.get("stdout") or "").rstrip("\n") == expected.rstrip("\n")
        return -1


def serving_run(tmp_path_factory: Any, config: dict[str, Any]) -> Any:
    """A module's live `spade serve --run-dir` (a generator for a pytest fixture): started in a fresh folder, and
    at the end stopped by SIGTERM, which it must answer by exiting with 128 + SIGTERM."""
    tmp = tmp_path_factory.mktemp("live")
    svc = Service(tmp, config, args=("--run-dir", str(tmp / "run")))
    yield svc
    assert svc.stop() == 128 + signal.SIGTERM
