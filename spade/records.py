"""Typed, frozen records that cross stage boundaries.

generate/validate produce `Task`; sample produces `Candidate`; the sandbox produces `ExecResult`
(one `TestOutcome` per test); reward produces `Reward`; the curriculum produces `Decision`.
Values inside test cases are plain JSON values (None, bool, int, float, str, list, dict).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any


@dataclass(frozen=True, slots=True)
class TestCase:
    """One call of the entry point: `args` is the positional argument list, `expected` the return value."""

    __test__ = False  # not a pytest class

    args: tuple[Any, ...]
    expected: Any


@dataclass(frozen=True, slots=True)
class Task:
    """A self-contained coding task. `test_cases` are shown to the policy; `hidden_test_cases` never are."""

    task_id: str
    description: str
    signature: str
    entry_point: str
    difficulty: float
    tags: tuple[str, ...] = ()
    test_cases: tuple[TestCase, ...] = ()
    hidden_test_cases: tuple[TestCase, ...] = ()
    reference_solution: str | None = None
    family: str | None = None
    params: dict[str, Any] = field(default_factory=dict)  # knobs that made it (procedural families)
    provenance: dict[str, Any] = field(default_factory=dict)  # source, model, prompt hash, seed…

    @property
    def all_tests(self) -> tuple[TestCase, ...]:
        return self.test_cases + self.hidden_test_cases


class TestStatus(str, Enum):
    """Verdict for one test, decided by the supervisor."""

    __test__ = False

    PASSED = "passed"
    WRONG_ANSWER = "wrong_answer"
    EXCEPTION = "exception"
    TIMEOUT = "timeout"
    MEMORY = "memory"
    KILLED = "killed"  # died without reporting (signal, os._exit, crash)
    UNENCODABLE = "unencodable"  # returned an object the strict encoder refuses
    NOT_RUN = "not_run"  # the candidate never got to it (syntax error, missing entry point)
    INTERNAL_ERROR = "internal_error"  # the sandbox could not judge it (worker died or stalled, malformed reply)


class ExecStatus(str, Enum):
    """Overall verdict for one candidate on one task."""

    PASSED = "passed"  # every test passed
    FAILED = "failed"  # ran, some test did not pass
    TIMEOUT = "timeout"  # at least one test timed out and none passed after it
    SYNTAX_ERROR = "syntax_error"
    NO_ENTRY_POINT = "no_entry_point"
    LOAD_ERROR = "load_error"  # module-level code raised or was killed
    INTERNAL_ERROR = "internal_error"  # the sandbox failed on this candidate (its worker was replaced): scores 0


@dataclass(frozen=True, slots=True)
class TestOutcome:
    """What happened on one test. `got` is a truncated repr of a wrong value; `error` the exception type."""

    __test__ = False

    index: int
    hidden: bool
    status: TestStatus
    got: str | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class ExecResult:
    """A candidate scored against a task. CPU time and peak memory come from the kernel (wait4)."""

    status: ExecStatus
    tests: tuple[TestOutcome, ...]
    cpu_time_s: float
    peak_memory_kb: int
    wall_time_s: float
    output_bytes: int = 0  # bytes the candidate wrote to stdout/stderr
    load_error: str | None = None
    events: tuple[str, ...] = ()  # behaviour the sandbox observed: output_flood, file_access, socket, …
    memory_limit_kb: int = 0  # the memory limit it ran under (0: unknown), the scale of peak_memory_kb

    @property
    def score(self) -> float:
        return _fraction(self.tests, hidden=None)

    @property
    def public_score(self) -> float:
        return _fraction(self.tests, hidden=False)

    @property
    def hidden_score(self) -> float:
        return _fraction(self.tests, hidden=True)

    @property
    def timed_out(self) -> bool:
        return any(t.status is TestStatus.TIMEOUT for t in self.tests)


def _fraction(tests: tuple[TestOutcome, ...], hidden: bool | None) -> float:
    chosen = [t for t in tests if hidden is None or t.hidden == hidden]
    if not chosen:
        return 0.0
    return sum(t.status is TestStatus.PASSED for t in chosen) / len(chosen)


@dataclass(frozen=True, slots=True)
class Candidate:
    """One sampled solution. `code` is what the extractor took from `completion` ('' when nothing usable)."""

    candidate_id: str
    task_id: str
    completion: str
    code: str
    model: str
    prompt_hash: str
    prompt_variant: int = 0
    new_tokens: int = 0


@dataclass(frozen=True, slots=True)
class Reward:
    """The training signal for one candidate, each term reported separately; `total` is their weighted sum."""

    total: float
    pass_fraction: float
    difficulty_bonus: float = 0.0
    efficiency_penalty: float = 0.0
    interference_penalty: float = 0.0
    format_penalty: float = 0.0
    hardcoding_suspected: bool = False
    memory_penalty: float = 0.0


@dataclass(frozen=True, slots=True)
class Decision:
    """A curriculum decision and the window statistics that caused it."""

    step: int
    family: str
    old_difficulty: float
    new_difficulty: float
    window_mean: float
    window_size: int
    streak: int
    reason: str
