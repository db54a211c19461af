"""A local OpenAI-compatible server for a GGUF model (llama-cpp-python's server, with weight repacking off).

`python -m spade.serving.llama_server --model PATH --host 127.0.0.1 --port N` serves one model; `LocalLlamaServer`
starts that as a subprocess on a free loopback port, waits until /v1/models answers and kills its process group on
exit. Repacking is off because ggml's AMX weight repacking segfaults on the first generation on AVX-512/AMX CPUs
(the `--no-repack` of llama.cpp); `Llama()` 0.3.36 does not expose it, so the default model params are patched.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import Any

from spade.errors import ModelError

INSTALL_HINT = 'pip install "llama-cpp-python[server]==0.3.36"'
LOOPBACK = "127.0.0.1"


def disable_weight_repacking() -> None:
    """Make every llama model load with use_extra_bufts = False (no CPU weight repacking)."""
    import llama_cpp.llama_cpp as lib

    original = getattr(lib.llama_model_default_params, "_spade_original", lib.llama_model_default_params)

    def defaults_without_repacking() -> Any:
        params = original()
        params.use_extra_bufts = False
        return params

    defaults_without_repacking._spade_original = original  # type: ignore[attr-defined]
    lib.llama_model_default_params = defaults_without_repacking


def serve(argv: list[str] | None = None) -> None:
    """Parse the command line, patch the model params and run the llama_cpp.server app under uvicorn."""
    args = _parser().parse_args(argv)
    try:
        import uvicorn
        from llama_cpp.server.app import create_app
        from llama_cpp.server.settings import ModelSettings, ServerSettings
    except ImportError as exc:
        raise SystemExit(f"the llama.cpp server is not installed ({exc}); install it with `{INSTALL_HINT}`") from None
    disable_weight_repacking()
    model = ModelSettings(
        model=str(args.model), model_alias=args.alias or Path(args.model).stem, n_ctx=args.n_ctx,
        n_threads=args.threads, n_threads_batch=args.threads, n_batch=args.n_batch, verbose=False, logits_all=False,
        seed=args.seed,
    )
    server = ServerSettings(host=args.host, port=args.port)
    app = create_app(server_settings=server, model_settings=[model])
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m spade.serving.llama_server", description=__doc__.splitlines()[0])
    p.add_argument("--model", required=True, type=Path, help="path of a .gguf file")
    p.add_argument("--host", default=LOOPBACK)
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--alias", default="", help="model name the API lists (default: the file's stem)")
    p.add_argument("--n-ctx", type=int, default=2048)
    p.add_argument("--n-batch", type=int, default=512)
    p.add_argument("--threads", type=int, default=1, help="CPU threads for generation")
    p.add_argument("--seed", type=int, default=0)
    return p


def free_port() -> int:
    """A TCP port on the loopback interface that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((LOOPBACK, 0))
        return int(s.getsockname()[1])


class LocalLlamaServer:
    """Context manager: a llama.cpp server for `model` on 127.0.0.1, ready when entered, gone when left."""

    def __init__(self, model: str | Path | None = None, *, threads: int = 1, n_ctx: int = 2048,
                 alias: str = "", start_timeout_s: float = 180.0) -> None:
        if model is None:
            from spade.serving.gguf import find_gguf

            model = find_gguf()
        self.model = Path(model)
        self.alias = alias or self.model.stem
        self.threads = threads
        self.n_ctx = n_ctx
        self.start_timeout_s = start_timeout_s
        self.port = 0
        self.start_seconds = 0.0
        self._proc: subprocess.Popen[bytes] | None = None
        self._log: Any = None

    @property
    def base_url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}/v1"

    def __enter__(self) -> LocalLlamaServer:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()

    def start(self) -> None:
        if not self.model.is_file():
            raise ModelError(f"model file {self.model} does not exist; pass the path of a .gguf file")
        self.port = free_port()
        self._log = tempfile.NamedTemporaryFile(prefix="spade-llama-server-", suffix=".log", delete=False)
        cmd = [sys.executable, "-m", "spade.serving.llama_server", "--model", str(self.model), "--host", LOOPBACK,
               "--port", str(self.port), "--alias", self.alias, "--threads", str(self.threads),
               "--n-ctx", str(self.n_ctx)]
        started = time.perf_counter()
        # A new session makes the server its own process group, so stop() can kill it and anything it spawned.
        self._proc = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                      start_new_session=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        self.start_seconds = time.perf_counter() - started

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.start_timeout_s
        while time.monotonic() < deadline:
            assert self._proc is not None
            if self._proc.poll() is not None:
                raise ModelError(f"the llama.cpp server exited with status {self._proc.returncode} while starting "
                                 f"({self.log_tail()}); see {self._log.name}")
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as resp:
                    if resp.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            time.sleep(0.2)
        raise ModelError(f"the llama.cpp server did not answer within {self.start_timeout_s:g} s; see {self._log.name}")

    def log_tail(self, lines: int = 3) -> str:
        if self._log is None:
            return ""
        text = Path(self._log.name).read_text(errors="replace").strip().splitlines()
        return " | ".join(text[-lines:]) or "no output"

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 10.0)):
                try:
                    os.killpg(proc.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    proc.wait(timeout=wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
        if self._log is not None:
            self._log.close()


if __name__ == "__main__":
    serve()
