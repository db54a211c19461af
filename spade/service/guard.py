"""What every request passes before a route sees it, as one plain ASGI layer: a request id, bearer-token auth, the
body size limit, and one structured (JSON) log line and one metrics observation when it ends.

in: the ASGI app, the token (None: no auth), the body limit. out: 401 without the right token (GET /health and
/v1/ping stay open for probes), 413 for a body over the limit (by Content-Length or as it streams), else the app's
own answer. Bodies are read whole here (they are bounded) and replayed to the app.
"""

from __future__ import annotations

import hmac
import json
import logging
import time
import uuid
from typing import Any

from spade.service.metrics import Metrics

log = logging.getLogger("spade.service")
OPEN_PATHS = frozenset({"/health", "/v1/ping"})
ROUTES = frozenset({"/run_code", "/v1/grade", "/health", "/v1/ping", "/v1/status", "/metrics", "/v1/env/draw",
                    "/v1/env/step", "/v1/env/status"})


class Guard:
    def __init__(self, app: Any, token: str | None, max_body_bytes: int, metrics: Metrics) -> None:
        self.app, self.max_body, self.metrics = app, max_body_bytes, metrics
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

        try:
            refusal = self._refusal(scope)
            if refusal is None:
                body = await self._body(scope, receive)
                if body is None:
                    refusal = (413, f"the request body exceeds {self.max_body} bytes (serve.max_body_bytes)", {})
            if refusal is not None:
                await _answer(send_logged, *refusal)
            else:
                await self.app(scope, _replay(body, receive), send_logged)
        finally:
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
        if length is not None and (not length.isdigit() or int(length) > self.max_body):
            return 413, f"the request body exceeds {self.max_body} bytes (serve.max_body_bytes)", {}
        return None

    async def _body(self, scope: dict, receive: Any) -> bytes | None:
        """The whole body, or None once it passes the limit."""
        parts, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                return None
            parts.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(parts)


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
