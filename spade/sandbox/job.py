"""What goes into the sandbox (`Job`) and what comes out (`RawRun`), before any grading.

in: code, entry point, positional inputs per test, per-test time limits, a memory limit.
out: one `RawOutcome` per test (what the function returned, decoded into plain builtins, or why not),
plus kernel-measured CPU time and peak memory, wall time, output volume and observed events.
Expected values are not part of a Job: they stay with the supervisor (see grade.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from spade.errors import SandboxError


class OutcomeKind(str, Enum):
    """How one call of the entry point ended, as seen by the zygote."""

    VALUE = "value"
    EXCEPTION = "exception"
    TIMEOUT = "timeout"
    MEMORY = "memory"
    KILLED = "killed"
    UNENCODABLE = "unencodable"
    NOT_RUN = "not_run"
    INTERNAL_ERROR = "internal_error"
    """Set by the host, never the zygote: the worker died or stalled, or its reply was malformed."""


@dataclass(frozen=True, slots=True)
class Job:
    """One candidate to run. `inputs[i]` is the positional argument tuple of test i."""

    code: str
    entry_point: str
    inputs: tuple[tuple[Any, ...], ...]
    time_limits: tuple[float, ...]
    memory_bytes: int
    total_timeout: float = 5.0
    """Wall-clock seconds for the whole candidate (all tests together)."""
    max_output_bytes: int = 65536
    run_all_tests_after_timeout: bool = False
    """False: the first per-test timeout ends the candidate and its untried tests are not run."""
    hash_seed: int | None = None
    """The str hash seed of the worker that runs it: None is the pool's (GRADING_HASH_SEED); another value runs
    the job on a worker started with that seed (validation's second reference run)."""

    def __post_init__(self) -> None:
        if len(self.time_limits) != len(self.inputs):
            raise SandboxError(
                f"Job.time_limits has {len(self.time_limits)} entries for {len(self.inputs)} inputs; give one per test"
            )
        if any(not t > 0 for t in self.time_limits) or not self.total_timeout > 0:
            raise SandboxError(f"Job time limits must be positive, got {self.time_limits} / {self.total_timeout}")


@dataclass(frozen=True, slots=True)
class RawOutcome:
    """`value` is the decoded return value (kind VALUE only); `error` says what went wrong otherwise."""

    kind: OutcomeKind
    value: Any = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class RawRun:
    """A candidate's run, ungraded. `load_status` is syntax_error / no_entry_point / load_error or None."""

    outcomes: tuple[RawOutcome, ...]
    cpu_time_s: float
    peak_memory_kb: int
    wall_time_s: float
    output_bytes: int = 0
    output: str = ""
    """The first max_output_bytes of stdout+stderr, for humans only: never a verdict."""
    load_status: str | None = None
    load_error: str | None = None
    events: tuple[str, ...] = ()
    memory_limit_kb: int = 0
    """The memory limit the job ran under, set by the pool (0: unknown)."""

    @property
    def values(self) -> list[Any]:
        """Returned values in test order (None where the test produced no value)."""
        return [o.value if o.kind is OutcomeKind.VALUE else None for o in self.outcomes]

    @property
    def all_returned(self) -> bool:
        return self.load_status is None and all(o.kind is OutcomeKind.VALUE for o in self.outcomes)


def to_json_value(value: Any) -> Any:
    """Convert a decoded value to plain JSON (tuples and sets become lists) for storing as `expected`.

    Raises ValueError for values JSON cannot hold faithfully (bytes, dicts with non-str keys).
    Sets become lists in a stable (sorted where possible) order.
    """
    t = type(value)
    if value is None or t in (bool, int, float, str):
        return value
    if t in (list, tuple):
        return [to_json_value(v) for v in value]
    if t in (set, frozenset):
        items = [to_json_value(v) for v in value]
        try:
            return sorted(items)
        except TypeError:
            return items
    if t is dict:
        if any(type(k) is not str for k in value):
            raise ValueError("a dict with non-string keys cannot be stored as a JSON expected value")
        return {k: to_json_value(v) for k, v in value.items()}
    raise ValueError(f"a {t.__name__} cannot be stored as a JSON expected value")
