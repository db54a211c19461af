"""What every request passes before a route sees it, as one plain ASGI layer: a request id, bearer-token auth, the
body size limit, the read deadline and the buffered-bytes budget, and one structured (JSON) log line and one metrics
observation when it ends.

in: the ASGI app, the token (None: no auth), the body limit, the read deadline, the byte budget. out: 401 without the
right token (GET /health and /v1/ping stay open for probes), 413 for a body over the limit (by Content-Length or as
it streams), 408 for a body that does not arrive within the read deadline, 503 + Retry-After when the bodies held
at once would pass the budget, else the app's own answer. Bodies are read whole here, before a route asks for an
admission slot, so a slow or large client never holds one; they are replayed to the app.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import time
import uuid
from typing import Any

from spade.service.metrics import Metrics

log = logging.getLogger("spade.service")
OPEN_PATHS = frozenset({"/health", "/v1/ping"})
ROUTES = frozenset({"/run_code", "/v1/grade", "/v1/openrlhf/reward", "/health", "/v1/ping", "/v1/status", "/metrics",
                    "/v1/env/draw", "/v1/env/step", "/v1/env/status"})


class Budget:
    """Request bytes held at once, by every request between its first body byte and its answer."""

    def __init__(self, limit: int) -> None:
        self.limit, self.held, self.peak = limit, 0, 0

    def take(self, n: int) -> bool:
        if self.held + n > self.limit:
            return False
        self.held += n
        self.peak = max(self.peak, self.held)
        return True

    def give(self, n: int) -> None:
        self.held -= n


class Guard:
    def __init__(self, app: Any, token: str | None, max_body_bytes: int, metrics: Metrics,
                 read_timeout_s: float = 10.0, max_buffered_bytes: int = 64 << 20) -> None:
        self.app, self.max_body, self.metrics = app, max_body_bytes, metrics
        self.read_timeout_s = read_timeout_s
        self.budget = Budget(max_buffered_bytes)
        self._token = None if token is None else f"Bearer {token}".encode()

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)  # lifespan
            return
        started = time.monotonic()
        rid = _header(scope, b"x-request-id") or uuid.uuid4().hex[:16]
        state = scope.setdefault("state", {})
        status = [500]

        async def send_logged(message: dict) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
                message["headers"] = [*message.get("headers", []), (b"x-request-id", rid.encode())]
            await send(message)

        held = [0]
        try:
            refusal = self._refusal(scope)
            if refusal is None:
                body, refusal = await self._body(scope, receive, held)
            if refusal is not None:
                await _answer(send_logged, *refusal)
            else:
                await self.app(scope, _replay(body, receive), send_logged)
        finally:
            self.budget.give(held[0])
            seconds = time.monotonic() - started
            path = scope["path"] if scope["path"] in ROUTES else "other"
            verdict = state.get("verdict")
            self.metrics.observe(path, status[0], seconds, verdict)
            log.info(json.dumps({"event": "request", "id": rid, "method": scope["method"], "path": scope["path"],
                                 "status": status[0], "ms": round(seconds * 1000, 2), "verdict": verdict,
                                 "client": (scope.get("client") or ["?"])[0]}))

    def _refusal(self, scope: dict) -> tuple[int, str, dict[str, str]] | None:
        if self._token is not None and scope["path"] not in OPEN_PATHS:
            given = _header(scope, b"authorization")
            if given is None or not hmac.compare_digest(given.encode(), self._token):
                return 401, "a valid bearer token is required (Authorization: Bearer <token>)", {
                    "WWW-Authenticate": "Bearer"}
        length = _header(scope, b"content-length")
        if length is not None and not (length.isascii() and length.isdigit() and len(length) <= 18):
            return 400, "the Content-Length header is not a byte count", {"Connection": "close"}
        if length is not None and int(length) > self.max_body:
            return 413, f"the request body exceeds {self.max_body} bytes (serve.max_body_bytes)", {"Connection": "close"}
        return None

    async def _body(self, scope: dict, receive: Any, held: list[int]
                    ) -> tuple[bytes, tuple[int, str, dict[str, str]] | None]:
        """The whole body, read within the deadline and the budget (`held` counts what this request took from
        it), or the refusal that ends the request (its connection then closes: the rest is never read)."""
        length = _header(scope, b"content-length")
        if length is not None and not self._hold(held, int(length)):
            return b"", self._over_budget()
        deadline = time.monotonic() + self.read_timeout_s
        parts, size = [], 0
        while True:
            try:
                message = await asyncio.wait_for(receive(), timeout=max(0.0, deadline - time.monotonic()))
            except TimeoutError:
                return b"", (408, f"the request body did not arrive within {self.read_timeout_s:g} s "
                                  "(serve.read_timeout_s)", {"Connection": "close"})
            if message["type"] == "http.disconnect":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                return b"", (413, f"the request body exceeds {self.max_body} bytes (serve.max_body_bytes)",
                             {"Connection": "close"})
            if length is None and not self._hold(held, len(chunk)):
                return b"", self._over_budget()
            parts.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(parts), None

    def _hold(self, held: list[int], n: int) -> bool:
        if not self.budget.take(n):
            return False
        held[0] += n
        return True

    def _over_budget(self) -> tuple[int, str, dict[str, str]]:
        return 503, (f"the service already holds {self.budget.held} bytes of requests (serve.max_buffered_bytes = "
                     f"{self.budget.limit}); retry shortly"), {"Retry-After": "1", "Connection": "close"}


def _replay(body: bytes, receive: Any) -> Any:
    """The body in one message, then the client's own messages (a disconnect, when it comes)."""
    sent = [False]

    async def replay() -> dict:
        if not sent[0]:
            sent[0] = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


def _header(scope: dict, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value.decode("latin-1")
    return None


async def _answer(send: Any, status: int, detail: str, headers: dict[str, str]) -> None:
    body = json.dumps({"detail": detail}).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(k.lower().encode(), v.encode()) for k, v in headers.items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})
