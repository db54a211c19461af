"""Connections before a request exists: uvicorn's h11 protocol with a header deadline and a cap on open
connections, the file-descriptor limit raised to what the host allows, and one-line, rate-limited logs for the
event loop's own errors.

in: serve.read_timeout_s, the connection cap. out: a protocol class for uvicorn.Config(http=...): a connection whose
request line and headers have not all arrived within the deadline is closed (uvicorn times only idle keep-alive
connections), and a connection past the cap is answered 503 and closed at once, so slow clients cannot use up the
process's file descriptors.
"""

from __future__ import annotations

import asyncio
import logging
import resource
import time
from typing import Any

RESERVED_FDS = 64  # for the sandbox workers' pipes and logs, the database, the listening socket
FDS_PER_WORKER = 8
ACCEPT_BURST = 32
"""The listening backlog, and so the most connections one event-loop turn accepts; a connection past the cap is
closed a few turns later, so the cap leaves room for four bursts."""
_BUSY_BODY = b'{"detail": "too many open connections (serve.max_connections); retry shortly"}'
BUSY = (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nconnection: close\r\n"
        b"retry-after: 1\r\ncontent-length: " + str(len(_BUSY_BODY)).encode() + b"\r\n\r\n" + _BUSY_BODY)


def raise_fd_limit() -> int:
    """Lift the soft limit on open files to the hard limit; returns the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        target = min(hard, 1 << 20)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return soft


def connection_cap(configured: int, fd_limit: int, workers: int) -> int:
    """serve.max_connections, or (0) what the descriptor limit leaves after the pool's and the process's own."""
    room = max(16, fd_limit - RESERVED_FDS - FDS_PER_WORKER * workers - 4 * ACCEPT_BURST)
    return min(configured, room) if configured else room


def protocol_class(read_timeout_s: float, max_connections: int) -> type:
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class DeadlineProtocol(H11Protocol):
        """h11 with a deadline for each request's line and headers, and a cap on open connections."""

        _header_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:  # type: ignore[override]
            super().connection_made(transport)
            if len(self.connections) > max_connections:
                transport.write(BUSY)
                transport.close()
                return
            self._arm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
            super().connection_lost(exc)

        def _arm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
            self._header_timer = self.loop.call_later(read_timeout_s, self._headers_late)

        def _headers_late(self) -> None:
            self._header_timer = None
            idle = self.cycle is None or self.cycle.response_complete  # no request has begun since the timer was set
            if idle and not self.transport.is_closing():
                self.transport.close()

    return DeadlineProtocol


class RateLimited(logging.Filter):
    """At most one record a second for each logger and message template at warning level and above (the event
    loop reports every refused accept(), for instance); the request log is never dropped."""

    def __init__(self, every_s: float = 1.0) -> None:
        super().__init__()
        self.every_s = every_s
        self._last: dict[tuple[str, str], float] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING:
            return True
        key = (record.name, str(record.msg)[:80])
        now = time.monotonic()
        if now - self._last.get(key, -self.every_s) < self.every_s:
            return False
        if len(self._last) > 1000:
            self._last.clear()
        self._last[key] = now
        return True
