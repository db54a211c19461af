"""SandboxFusion's `POST /run_code`, answered by SPADE's sandbox: the request and response shapes, and the verdicts.

in: a RunCodeRequest as SandboxFusion documents it (code, language, stdin, run_timeout, compile_timeout,
memory_limit_MB, files, fetch_files). out: a RunCodeResponse: status Success (exit code 0) / Failed (non-zero
exit, timeout, memory) / SandboxError (the sandbox could not run it, an unsupported language or option), and
run_result {status Finished / TimeLimitExceeded / Error, execution_time, return_code, stdout, stderr}.
Only `python` runs (with numpy, sympy and mpmath importable, read-only, as SandboxFusion's Python runtime has
numpy); SandboxFusion's other languages get its SandboxError shape, unknown ones a 422 as there.
"""

from __future__ import annotations

import base64
import binascii
import math
from typing import Literal

from pydantic import BaseModel, Field

from spade.config import ServeConfig
from spade.errors import SandboxError
from spade.sandbox.libraries import search_path
from spade.sandbox.program import ProgramJob, ProgramRun, ProgramVerdict

Language = Literal["python", "cpp", "nodejs", "go", "go_test", "java", "php", "csharp", "bash", "typescript", "sql",
                   "rust", "cuda", "lua", "R", "perl", "D_ut", "ruby", "scala", "julia", "pytest", "junit",
                   "kotlin_script", "jest", "verilog", "python_gpu", "lean", "swift", "racket"]
"""The languages SandboxFusion accepts; any other value is a validation error (422), as it is there."""


class RunCodeRequest(BaseModel):
    compile_timeout: float = Field(10, description="compile timeout for compiled languages (unused for python)")
    run_timeout: float = Field(10, description="wall-clock seconds for the run (capped by serve.max_run_timeout_s)")
    memory_limit_MB: int = Field(-1, description="address-space limit in MiB; -1 for the service's default")
    code: str = Field(..., description="the program")
    stdin: str | None = Field(None, description="text given to the program on stdin")
    language: Language = Field(..., description="only python runs here")
    files: dict[str, str | None] = Field({}, description="relative path -> base64 content, placed beside the program")
    fetch_files: list[str] = Field([], description="not supported: must be empty")


class CommandRunResult(BaseModel):
    status: Literal["Finished", "Error", "TimeLimitExceeded"]
    execution_time: float | None = None
    return_code: int | None = None
    stdout: str | None = None
    stderr: str | None = None


class RunCodeResponse(BaseModel):
    status: Literal["Success", "Failed", "SandboxError"]
    message: str
    compile_result: CommandRunResult | None = None
    run_result: CommandRunResult | None = None
    executor_pod_name: str | None = None
    files: dict[str, str] = {}


class Limits(BaseModel):
    """The service's caps on what one request may ask for (from ServeConfig and ExecutorConfig)."""

    max_run_timeout_s: float
    default_memory_mb: int
    max_memory_mb: int
    max_output_bytes: int


QUEUE_MARGIN_S = 5.0


def queue_wait_s(request: RunCodeRequest, serve: ServeConfig) -> float:
    """How long the request may wait for a slot: serve.request_timeout_s, and at most compile_timeout + 5 s, so the
    504 (which SandboxFusion clients retry) reaches a client that allows compile_timeout + run_timeout + 10 s
    before its own timeout does."""
    compile_s = request.compile_timeout if math.isfinite(request.compile_timeout) else 0.0
    return max(1.0, min(serve.request_timeout_s, max(0.0, compile_s) + QUEUE_MARGIN_S))


def sandbox_error(message: str) -> RunCodeResponse:
    """SandboxFusion's answer when the sandbox side cannot run a request: status SandboxError, no results."""
    return RunCodeResponse(status="SandboxError", message=message)


def job_for(request: RunCodeRequest, limits: Limits) -> ProgramJob | RunCodeResponse:
    """The program job for a python request, or the SandboxError response that refuses it."""
    if request.language != "python":
        return sandbox_error(f"language {request.language!r} is not supported by spade serve; only 'python' runs")
    if request.fetch_files:
        return sandbox_error("fetch_files is not supported by spade serve; send an empty list")
    if not request.run_timeout > 0:
        return sandbox_error(f"run_timeout = {request.run_timeout}: give a positive number of seconds")
    memory_mb = limits.default_memory_mb if request.memory_limit_MB <= 0 else request.memory_limit_MB
    files = []
    for path, content in request.files.items():
        if content is None:  # as SandboxFusion: a file without content is skipped
            continue
        try:
            files.append((path, base64.b64decode(content, validate=True)))
        except (binascii.Error, ValueError):
            return sandbox_error(f"files[{path[:80]!r}] is not valid base64")
    try:
        return ProgramJob(code=request.code, stdin=(request.stdin or "").encode("utf-8", "replace"),
                          files=tuple(files), time_limit_s=min(request.run_timeout, limits.max_run_timeout_s),
                          memory_bytes=max(16, min(memory_mb, limits.max_memory_mb)) << 20,
                          max_output_bytes=limits.max_output_bytes, libraries=tuple(search_path()))
    except SandboxError as exc:
        return sandbox_error(str(exc))


def response_for(run: ProgramRun) -> RunCodeResponse:
    """SandboxFusion's verdicts for a program run: a non-zero exit (an uncaught exception, MemoryError, a signal
    as -N) or a timeout is Failed; a sandbox failure is SandboxError with run_result status Error."""
    if run.verdict is ProgramVerdict.INTERNAL_ERROR:
        message = run.error or "the sandbox could not run the program"
        return RunCodeResponse(status="SandboxError", message=message,
                               run_result=CommandRunResult(status="Error", stderr=message))
    stdout, stderr = _text(run.stdout), _text(run.stderr)
    if run.verdict is ProgramVerdict.TIMEOUT:
        result = CommandRunResult(status="TimeLimitExceeded", execution_time=run.wall_time_s, stdout=stdout,
                                  stderr=stderr)
        return RunCodeResponse(status="Failed", message="", run_result=result)
    code = run.exit_code if run.exit_code is not None else -(run.signal or 9)
    result = CommandRunResult(status="Finished", execution_time=run.wall_time_s, return_code=code, stdout=stdout,
                              stderr=stderr)
    return RunCodeResponse(status="Success" if code == 0 else "Failed", message="", run_result=result)


def _text(data: bytes) -> str:
    try:
        return data.decode()
    except UnicodeDecodeError as exc:  # SandboxFusion's convention for output that is not UTF-8
        return f"[DecodeError] {exc}"
