"""A small client for OpenAI-compatible chat completions (vLLM, SGLang, llama.cpp, hosted APIs), over urllib.

In: a base URL, a model name, an optional API key and chat requests. Out: `ChatResult`s (texts and token usage).
`n` answers per request use the server's `n` when it honours it, else repeated requests. Transient failures
(429, 5xx, timeouts, refused connections) are retried with exponential backoff; after `max_retries` a one-sentence
ModelError stops the run cleanly (the pipeline commits per iteration, so it can be resumed).
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

from spade.errors import ModelError

_RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})
MAX_BACKOFF_S = 30.0


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """One chat-completions call: messages and sampling options. `seed` None lets the server pick."""

    messages: tuple[dict[str, str], ...]
    n: int = 1
    temperature: float = 0.8
    top_p: float = 1.0
    max_tokens: int = 256
    seed: int | None = None
    stop: tuple[str, ...] = ()
    json_mode: bool = False


@dataclass(frozen=True, slots=True)
class ChatResult:
    """The answers to one request: texts, finish reasons, and the tokens the server reported (0 when it did not)."""

    texts: tuple[str, ...]
    finish_reasons: tuple[str | None, ...]
    completion_tokens: int
    prompt_tokens: int
    seconds: float
    usage_reported: bool = True


@dataclass
class _Capabilities:
    """What we learned about the server; written once by whichever thread learns it first."""

    honours_n: bool | None = None
    json_mode: bool | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)


class ChatClient:
    """Chat completions against `base_url` (ending in /v1). Thread-safe; `chat_many` runs `concurrency` at once."""

    def __init__(
        self, base_url: str, model: str = "", *, api_key: str | None = None, timeout_s: float = 120.0,
        max_retries: int = 4, concurrency: int = 4, backoff_s: float = 0.5,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ModelError(f"base_url = {base_url!r} is not an http(s) URL; write e.g. http://127.0.0.1:8000/v1")
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.concurrency = concurrency
        self.backoff_s = backoff_s
        self._model = model
        self._caps = _Capabilities()

    @classmethod
    def from_sampling(cls, cfg: Any, base_url: str | None = None, model: str | None = None) -> ChatClient:
        """A client from a SamplingConfig (key read from the environment variable it names)."""
        return cls(
            base_url or cfg.base_url, model if model is not None else cfg.api_model,
            api_key=os.environ.get(cfg.api_key_env) or None, timeout_s=cfg.request_timeout_s,
            max_retries=cfg.max_retries, concurrency=cfg.concurrency,
        )

    # -- models ----------------------------------------------------------------------------------------
    def models(self) -> list[str]:
        """Model ids the server lists at /v1/models."""
        body = self._call("GET", "/models", None)
        return [str(m.get("id")) for m in body.get("data", []) if isinstance(m, dict)]

    @property
    def model(self) -> str:
        """The model name sent in requests; when none was configured, the first one the server lists."""
        if not self._model:
            names = self.models()
            if not names:
                raise ModelError(f"the server at {self.base_url} lists no models; set sampling.api_model")
            self._model = names[0]
        return self._model

    # -- chat ------------------------------------------------------------------------------------------
    def chat(self, request: ChatRequest) -> ChatResult:
        """All `request.n` answers, topping up with single requests when the server returns fewer choices."""
        started = time.perf_counter()
        first_n = request.n if self._caps.honours_n is not False else 1
        texts, reasons, usage = self._once(replace(request, n=first_n))
        if request.n > 1 and self._caps.honours_n is None:
            with self._caps.lock:
                self._caps.honours_n = len(texts) >= request.n
        seed = request.seed
        while len(texts) < request.n:
            seed = None if seed is None else seed + 1
            more, more_reasons, more_usage = self._once(replace(request, n=1, seed=seed))
            texts, reasons = texts + more, reasons + more_reasons
            usage = _add_usage(usage, more_usage)
        return ChatResult(
            tuple(texts[: request.n]), tuple(reasons[: request.n]), usage[0], usage[1],
            time.perf_counter() - started, usage_reported=usage[2],
        )

    def chat_many(self, requests: Sequence[ChatRequest]) -> list[ChatResult]:
        """Answers to every request, in order, at most `concurrency` in flight; the first ModelError stops all."""
        if len(requests) <= 1 or self.concurrency == 1:
            return [self.chat(r) for r in requests]
        _ = self.model  # resolve the model name once, before the threads race for it
        with ThreadPoolExecutor(self.concurrency, thread_name_prefix="spade-chat") as pool:
            futures = [pool.submit(self.chat, r) for r in requests]
            try:
                return [f.result() for f in futures]
            except BaseException:
                for f in futures:
                    f.cancel()
                raise

    def _once(self, request: ChatRequest) -> tuple[list[str], list[str | None], tuple[int, int, bool]]:
        payload: dict[str, Any] = {
            "model": self.model, "messages": list(request.messages), "n": request.n,
            "temperature": request.temperature, "top_p": request.top_p, "max_tokens": request.max_tokens,
        }
        if request.seed is not None:
            payload["seed"] = request.seed
        if request.stop:
            payload["stop"] = list(request.stop)
        if request.json_mode and self._caps.json_mode is not False:
            payload["response_format"] = {"type": "json_object"}
        try:
            body = self._call("POST", "/chat/completions", payload)
        except _Rejected as exc:
            if "response_format" not in payload or "response_format" not in exc.message:
                raise ModelError(exc.sentence) from None
            # The server refuses JSON mode: remember, and ask again in plain mode (the parser copes with prose).
            self._caps.json_mode = False
            return self._once(request)
        if "response_format" in payload:
            self._caps.json_mode = True
        return _parse_choices(body, self.base_url)

    # -- transport -------------------------------------------------------------------------------------
    def _call(self, method: str, path: str, payload: dict[str, Any] | None) -> dict[str, Any]:
        url = self.base_url + path
        last = ""
        for attempt in range(self.max_retries + 1):
            if attempt:
                time.sleep(self._backoff(attempt, last))
            try:
                return self._http(method, url, payload)
            except _Transient as exc:
                last = exc.reason
        raise ModelError(
            f"the model server at {self.base_url} failed {self.max_retries + 1} attempts ({last}); check that it "
            f"is running and that the base URL is right, then resume the run"
        )

    def _backoff(self, attempt: int, last: str) -> float:
        wait = min(self.backoff_s * 2 ** (attempt - 1), MAX_BACKOFF_S)
        if last.startswith("retry-after="):
            wait = min(max(wait, float(last.split("=", 1)[1].split()[0])), MAX_BACKOFF_S)
        return wait

    def _http(self, method: str, url: str, payload: dict[str, Any] | None) -> dict[str, Any]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        data = json.dumps(payload).encode() if payload is not None else None
        req = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as exc:
            raise _classify_http(exc, url) from None
        except (TimeoutError, socket.timeout):
            raise _Transient(f"no answer within {self.timeout_s:g} s") from None
        except (urllib.error.URLError, ConnectionError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise _Transient(f"connection failed: {reason}") from None
        try:
            body = json.loads(raw)
        except ValueError:
            raise _Transient(f"the answer from {url} is not JSON: {raw[:80]!r}") from None
        if not isinstance(body, dict):
            raise _Transient(f"the answer from {url} is not a JSON object")
        return body


class _Transient(Exception):
    """A failure worth retrying; `reason` goes into the final ModelError."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class _Rejected(Exception):
    """The server refused the request itself (4xx other than 408/409/429): retrying cannot help."""

    def __init__(self, status: int, message: str, url: str) -> None:
        super().__init__(message)
        self.message = message
        self.sentence = f"the model server refused the request to {url} (HTTP {status}): {message[:200]}"


def _classify_http(exc: urllib.error.HTTPError, url: str) -> Exception:
    try:
        text = exc.read().decode("utf-8", "replace")
    except OSError:
        text = ""
    message = _error_message(text) or str(exc.reason)
    if exc.code in _RETRY_STATUS:
        after = exc.headers.get("Retry-After") if exc.headers else None
        if after and after.strip().replace(".", "", 1).isdigit():
            return _Transient(f"retry-after={after.strip()} HTTP {exc.code}")
        return _Transient(f"HTTP {exc.code}: {message[:120]}")
    return _Rejected(exc.code, " ".join(message.split()), url)


def _error_message(text: str) -> str:
    try:
        body = json.loads(text)
    except ValueError:
        return text.strip()
    err = body.get("error", body.get("detail", body)) if isinstance(body, dict) else body
    if isinstance(err, dict):
        return str(err.get("message", err))
    return str(err)


def _parse_choices(body: dict[str, Any], base_url: str) -> tuple[list[str], list[str | None], tuple[int, int, bool]]:
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices:
        raise ModelError(f"the model server at {base_url} answered without choices; is it an OpenAI-compatible API?")
    ordered = sorted(choices, key=lambda c: c.get("index", 0) if isinstance(c, dict) else 0)
    texts, reasons = [], []
    for choice in ordered:
        message = choice.get("message") if isinstance(choice, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        texts.append(content if isinstance(content, str) else "")
        reasons.append(choice.get("finish_reason") if isinstance(choice, dict) else None)
    usage = body.get("usage")
    if isinstance(usage, dict):
        return texts, reasons, (int(usage.get("completion_tokens") or 0), int(usage.get("prompt_tokens") or 0), True)
    return texts, reasons, (0, 0, False)


def _add_usage(a: tuple[int, int, bool], b: tuple[int, int, bool]) -> tuple[int, int, bool]:
    return a[0] + b[0], a[1] + b[1], a[2] and b[2]
