"""`spade serve [--host H] [--port P] [--config FILE]`: start the service and run until SIGTERM or SIGINT.

in: the config (its `serve` and `executor` sections; --host/--port override serve.host/serve.port), the bearer
token from the environment variable serve.token_env. out: one line on stdout once listening (`spade serve:
listening on http://HOST:PORT ...`), JSON log lines on stderr, and on a signal a graceful stop: no new
connections, in-flight and queued requests finish (up to serve.shutdown_grace_s), then the pool closes.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import sys
from typing import Any

from spade.config import SpadeConfig
from spade.errors import ConfigError
from spade.service.connections import ACCEPT_BURST, RateLimited, connection_cap, protocol_class, raise_fd_limit

LOOPBACK_NAMES = frozenset({"localhost", "ip6-localhost"})


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def token_for(cfg: SpadeConfig, environ: dict[str, str] | None = None) -> str | None:
    """The bearer token when auth is on (serve.auth 'on', or 'auto' beyond loopback), else None; ConfigError
    when auth is on and the token variable is unset or empty."""
    serve = cfg.serve
    wanted = serve.auth == "on" or (serve.auth == "auto" and not is_loopback(serve.host))
    if not wanted:
        return None
    token = (environ if environ is not None else os.environ).get(serve.token_env, "")
    if not token:
        why = "serve.auth is 'on'" if serve.auth == "on" else f"serve.host = {serve.host!r} is beyond loopback"
        raise ConfigError(f"{why}, so requests need a bearer token: set the environment variable "
                          f"{serve.token_env} to a secret, or set serve.auth: off on a trusted network")
    return token


def resolved(cfg: SpadeConfig, host: str | None, port: int | None) -> SpadeConfig:
    """cfg with --host/--port applied and executor.workers fixed at its worker count, so the admission cap, the
    banner, the app and the pool all see one count (under workers 0 each read of the cgroup limit could differ)."""
    updates = {k: v for k, v in (("host", host), ("port", port)) if v is not None}
    executor = cfg.executor.model_copy(update={"workers": cfg.executor.worker_count})
    return cfg.model_copy(update={"serve": cfg.serve.model_copy(update=updates), "executor": executor})


def serve_command(cfg: SpadeConfig, host: str | None, port: int | None, run_dir: str | None = None) -> int:
    try:
        import uvicorn
    except ImportError:
        raise ConfigError("spade serve needs FastAPI and uvicorn: pip install -e '.[service]'") from None
    from spade.service.app import create_app

    cfg = resolved(cfg, host, port)
    token = token_for(cfg)
    _json_logs()
    app = create_app(cfg, token, run_dir=run_dir)
    serve = cfg.serve
    cap = connection_cap(serve.max_connections, raise_fd_limit(), cfg.executor.worker_count)
    config = uvicorn.Config(app, host=serve.host, port=serve.port, log_level="warning", access_log=False,
                            lifespan="on", timeout_graceful_shutdown=serve.shutdown_grace_s,
                            http=protocol_class(serve.read_timeout_s, cap), backlog=min(ACCEPT_BURST, cap))
    server = _server(config, cfg, app, token is not None)
    server.run()
    if not server.started:
        raise ConfigError(f"spade serve could not start on {cfg.serve.host}:{cfg.serve.port} (see the log above)")
    return 0


def _server(config: Any, cfg: SpadeConfig, app: Any, auth: bool) -> Any:
    """uvicorn's server, announcing where it listens once the pool is up, and refusing new work (503) as soon as
    a shutdown begins while in-flight and queued work finishes."""
    import uvicorn

    class Server(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets)
            if self.started:
                bound = self.servers[0].sockets[0].getsockname()
                print(f"spade serve: listening on http://{_url_host(bound[0])}:{bound[1]} "
                      f"(auth {'on' if auth else 'off'}, {cfg.executor.worker_count} sandbox workers, "
                      f"isolation {cfg.executor.isolation})", flush=True)

        def handle_exit(self, sig: int, frame: Any) -> None:
            import signal
            import time

            state = app.app.state
            if getattr(state, "stop_by", None) is None:  # the first signal starts the one shutdown deadline
                state.stop_by = time.monotonic() + cfg.serve.shutdown_grace_s
                state.exit_code = 128 + sig
                state.stop_line = f"spade serve: stopped by {signal.Signals(sig).name}; in-flight work past " \
                                  "serve.shutdown_grace_s was abandoned and the sandbox workers ended"
            elif sig == signal.SIGINT:  # a second Ctrl-C: uvicorn's force quit; the deadline is now
                state.stop_by = time.monotonic()
            super().handle_exit(sig, frame)

        async def shutdown(self, sockets: Any = None) -> None:
            admission = getattr(app.app.state, "admission", None)
            if admission is not None:
                admission.draining = True
            await super().shutdown(sockets)
            if self.force_exit:  # uvicorn skips the app's shutdown then; cancelled at exit, it prints a traceback
                await self.lifespan.shutdown()

    return Server(config)


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


class _JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        import json
        import time

        message = record.getMessage()
        if message.startswith("{"):  # already a JSON object (the request log): add the envelope in front
            return json.dumps({"ts": round(time.time(), 3), "level": record.levelname.lower(),
                               "logger": record.name})[:-1] + ", " + message[1:]
        return json.dumps({"ts": round(time.time(), 3), "level": record.levelname.lower(), "logger": record.name,
                           "message": message})


def _json_logs() -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_JsonFormatter())
    handler.addFilter(RateLimited())
    for name in ("spade", "uvicorn", "uvicorn.error", "asyncio"):
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.setLevel(logging.INFO)
        logger.propagate = False
