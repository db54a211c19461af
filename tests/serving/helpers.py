"""Real loopback servers for the serving and proposer tests.

`ScriptedServer`: a tiny http.server on 127.0.0.1 answering from a script of (status, JSON body) pairs, for
retry and parsing behaviour a real model cannot be made to show on demand. `shared_llama_server()`: one real
llama.cpp server (the embedded GGUF) per test process, started on first use and stopped at exit.
"""

from __future__ import annotations

import atexit
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


def chat_body(*texts: str, completion_tokens: int = 7) -> dict[str, Any]:
    """An OpenAI chat-completions answer holding `texts` as choices."""
    choices = [{"index": i, "message": {"role": "assistant", "content": t}, "finish_reason": "stop"}
               for i, t in enumerate(texts)]
    return {"id": "x", "object": "chat.completion", "model": "scripted", "choices": choices,
            "usage": {"prompt_tokens": 3, "completion_tokens": completion_tokens, "total_tokens": 10}}


class ScriptedServer:
    """Answers POSTs from `script` in order (the last entry repeats); GET /v1/models lists one model."""

    def __init__(self, script: list[tuple[int, dict[str, Any]]]) -> None:
        self.script = list(script)
        self.requests: list[dict[str, Any]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                self._send(200, {"object": "list", "data": [{"id": "scripted", "object": "model"}]})

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                owner.requests.append(json.loads(self.rfile.read(length) or b"{}"))
                index = min(len(owner.requests) - 1, len(owner.script) - 1)
                status, body = owner.script[index]
                self._send(status, body)

            def _send(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> ScriptedServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


_SERVER: Any = None


def shared_llama_server() -> Any:
    """The one real llama.cpp server of this test process; skips when llama-cpp-python is not installed."""
    global _SERVER
    pytest.importorskip("llama_cpp", reason="llama-cpp-python[server] is not installed (see the lead's setup)")
    pytest.importorskip("uvicorn", reason="llama-cpp-python's [server] extra (uvicorn) is not installed")
    if _SERVER is None:
        from spade.serving.llama_server import LocalLlamaServer

        server = LocalLlamaServer(threads=1)
        server.start()
        atexit.register(server.stop)
        report(f"llama.cpp server (SmolLM2-135M Q4_1, 1 thread) ready in {server.start_seconds:.1f} s")
        _SERVER = server
    return _SERVER


REPORT: list[str] = []


def report(line: str) -> None:
    """Print a measurement now (seen with -s) and again in the terminal summary (seen without it)."""
    print(line)
    REPORT.append(line)


def print_report(terminalreporter: Any) -> None:
    """Write and clear the collected measurements (both test folders' conftests call this; the first one wins)."""
    if REPORT:
        terminalreporter.section("SPADE serving and proposer measurements")
        for line in REPORT:
            terminalreporter.write_line(line)
        REPORT.clear()
