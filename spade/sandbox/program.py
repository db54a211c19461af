"""Program jobs: a whole Python program run with a given stdin (and files), as `python3 main.py < stdin` would.

in: `ProgramJob` (code, stdin bytes, files placed in the working directory, a wall-clock limit, memory, an output
cap). out: `ProgramRun`: how it ended (exited with a code, timeout, memory, killed, internal_error), the first
bytes of its stdout and stderr with their full sizes, kernel-measured CPU time and peak memory, wall time, events.
It runs in the same workers, under the same isolation and limits, as function candidates (see the threat model in
spade/sandbox/__init__.py); stdout is data for a judge outside the sandbox, never a verdict by itself.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from enum import Enum
from typing import Any

from spade.errors import SandboxError

MAX_FILES = 64
MAX_PATH_CHARS = 255


class ProgramVerdict(str, Enum):
    """How a program ended, decided outside its process."""

    EXITED = "exited"
    """It ended by itself; `exit_code` says how (0 for success, 1 for an uncaught exception, as python)."""
    TIMEOUT = "timeout"
    """It ran past its wall-clock limit (or its CPU limit) and was killed."""
    MEMORY = "memory"
    """It ended by an uncaught MemoryError: the address-space limit refused an allocation (exit code 1)."""
    KILLED = "killed"
    """A signal ended it (`signal`): a crash, the seccomp filter (SIGSYS), or closing its pipes and running on."""
    INTERNAL_ERROR = "internal_error"
    """The sandbox could not judge it (the worker died or stalled, or its reply was malformed)."""


@dataclass(frozen=True, slots=True)
class ProgramJob:
    code: str
    stdin: bytes = b""
    files: tuple[tuple[str, bytes], ...] = ()
    """(relative path, content) pairs written into the working directory before the program starts."""
    time_limit_s: float = 10.0
    """Wall-clock seconds from the moment the program is handed over (its CPU limit is one second more)."""
    memory_bytes: int = 512 << 20
    max_output_bytes: int = 1 << 20
    """Bytes of stdout, and of stderr, kept; more is counted, discarded and marked output_flood."""
    hash_seed: int | None = None
    """As Job.hash_seed: None runs it on one of the pool's workers, another value on a worker with that seed."""
    libraries: tuple[str, ...] = ()
    """Folders appended to the program's sys.path (spade.sandbox.libraries.search_path(): the read-only libraries,
    numpy among them, as a SandboxFusion Python runtime has them); BLAS then runs one thread."""

    def __post_init__(self) -> None:
        if not 0 < self.time_limit_s <= 600:
            raise SandboxError(f"ProgramJob.time_limit_s = {self.time_limit_s}; give a value in (0, 600] seconds")
        if self.memory_bytes < 16 << 20:
            raise SandboxError(f"ProgramJob.memory_bytes = {self.memory_bytes}; give at least 16 MiB")
        if len(self.files) > MAX_FILES:
            raise SandboxError(f"ProgramJob has {len(self.files)} files; give at most {MAX_FILES}")
        for path, _ in self.files:
            check_path(path)

    def request(self, tmpfs_bytes: int) -> dict[str, Any]:
        """The control message for the zygote. Files larger than the private /tmp together are refused here."""
        size = sum(len(data) for _, data in self.files)
        if size > tmpfs_bytes // 2:
            raise SandboxError(f"the job's files hold {size} bytes; the sandbox's /tmp takes at most "
                               f"{tmpfs_bytes // 2} (raise executor.tmpfs_size_mb)")
        return {"program": True, "code": self.code, "stdin": self.stdin.decode("utf-8", "surrogateescape"),
                "files": [[path, base64.b64encode(data).decode()] for path, data in self.files],
                "time": self.time_limit_s, "mem": self.memory_bytes, "out_cap": self.max_output_bytes,
                "lib": list(self.libraries)}


def check_path(path: str) -> None:
    """A file's path must be relative, plain and short: no '..', no empty or '.' parts, no NUL."""
    parts = path.split("/")
    if (not path or path.startswith("/") or "\0" in path or len(path) > MAX_PATH_CHARS
            or any(part in ("", ".", "..") for part in parts)):
        raise SandboxError(f"file path {path[:80]!r} is not allowed; give a relative path without '..', "
                           f"'.', empty parts or NUL, at most {MAX_PATH_CHARS} characters")


@dataclass(frozen=True, slots=True)
class ProgramRun:
    verdict: ProgramVerdict
    exit_code: int | None
    """The exit status when the program exited by itself (verdict exited or memory), else None."""
    signal: int | None
    stdout: bytes
    stderr: bytes
    stdout_bytes: int
    """All bytes written to stdout, kept or not."""
    stderr_bytes: int
    cpu_time_s: float
    peak_memory_kb: int
    wall_time_s: float
    events: tuple[str, ...] = ()
    error: str | None = None
    """Why the sandbox could not judge it (internal_error only)."""

    @property
    def ok(self) -> bool:
        """Exited by itself with code 0."""
        return self.verdict is ProgramVerdict.EXITED and self.exit_code == 0


def program_internal_error(why: str) -> ProgramRun:
    return ProgramRun(ProgramVerdict.INTERNAL_ERROR, None, None, b"", b"", 0, 0, 0.0, 0, 0.0,
                      events=("internal_error",), error=why[:300])


def parse_program_reply(reply: Any) -> ProgramRun:
    """The zygote's reply as a ProgramRun; ValueError/KeyError/TypeError on a reply of the wrong shape."""
    body = reply["program"]
    verdict = ProgramVerdict(body["verdict"])
    if verdict is ProgramVerdict.INTERNAL_ERROR:
        raise ValueError("the zygote cannot give internal_error")
    events = reply["events"]
    if type(events) is not list or not all(type(e) is str for e in events):
        raise ValueError("events is not a list of names")
    return ProgramRun(
        verdict=verdict, exit_code=_optional_int(body["exit_code"]), signal=_optional_int(body["signal"]),
        stdout=_bytes(body["stdout"]), stderr=_bytes(body["stderr"]),
        stdout_bytes=_count(body["stdout_bytes"]), stderr_bytes=_count(body["stderr_bytes"]),
        cpu_time_s=_measure(reply["cpu"]), peak_memory_kb=_count(reply["maxrss"]), wall_time_s=_measure(reply["wall"]),
        events=tuple(events))


def _bytes(value: Any) -> bytes:
    if type(value) is not str:
        raise TypeError(f"expected text, got {type(value).__name__}")
    return value.encode("utf-8", "surrogateescape")


def _optional_int(value: Any) -> int | None:
    if value is not None and (type(value) is not int or not 0 <= value < 256):
        raise ValueError(f"{value!r:.40} is not an exit code or signal number")
    return value


def _count(value: Any) -> int:
    if type(value) is not int or not 0 <= value < 1 << 50:
        raise ValueError(f"{value!r:.40} is not a count")
    return value


def _measure(value: Any) -> float:
    if type(value) not in (int, float) or not 0 <= value < 1e15:
        raise ValueError(f"a measurement of {value!r:.40} is not a non-negative number")
    return float(value)
