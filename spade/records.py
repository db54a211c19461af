"""Typed, frozen records that cross stage boundaries.

generate/validate produce `Task`; the policy produces `Completion`s; the grading path (spade.rollout) turns each
into a `Candidate` (the extracted answer), an `ExecResult` (the sandbox's verdict, one `TestOutcome` per test) and a
`Reward`, together a `Rollout`; the curriculum produces `Decision`.
Values inside test cases are plain JSON values (None, bool, int, float, str, list, dict).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

PYTHON_FUNCTION = "python_function"  # the first task kind: write a Python function, judged on its return values


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
    kind: str = PYTHON_FUNCTION  # the task kind (spade.kinds): how it is shown, answered, executed and judged
    reference_cpu_s: float | None = None  # the reference's CPU seconds per test, measured by validation

    @property
    def all_tests(self) -> tuple[TestCase, ...]:
        return self.test_cases + self.hidden_test_cases


@dataclass(frozen=True, slots=True)
class TaskDraft:
    """Everything of a Task except expected values: `public_inputs`/`hidden_inputs` are argument lists."""

    task_id: str
    description: str
    signature: str
    entry_point: str
    difficulty: float
    tags: tuple[str, ...]
    public_inputs: tuple[tuple[Any, ...], ...]
    hidden_inputs: tuple[tuple[Any, ...], ...]
    reference_solution: str
    family: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    provenance: dict[str, Any] = field(default_factory=dict)
    kind: str = PYTHON_FUNCTION  # the task kind the draft becomes (its family's)

    @property
    def all_inputs(self) -> tuple[tuple[Any, ...], ...]:
        return self.public_inputs + self.hidden_inputs


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


OUTPUT_KEPT = 4096
"""Bytes of a program's stdout and of its stderr kept in its ExecResult (and the run's executions table)."""


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
    stdout: str = ""  # a program's output on its first failing test (else its first), at most OUTPUT_KEPT bytes
    stderr: str = ""  # kept for the audit trail only: never part of a verdict

    @property
    def passed(self) -> bool:
        """Every test ran and passed (a result with no tests never passes)."""
        return self.status is ExecStatus.PASSED and bool(self.tests)

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
class Completion:
    """One sampled answer: the text after the prompt's prefill, tokens generated, and the prompt it answered."""

    text: str
    new_tokens: int = 0
    prompt_variant: int = 0
    prompt_hash: str = ""


@dataclass(frozen=True, slots=True)
class TermValue:
    """A reward term registered beyond the built-ins (spade.reward.register_term): what it added to the total
    (negative for a penalty)."""

    name: str
    value: float


@dataclass(frozen=True, slots=True)
class Reward:
    """The training signal for one candidate, each term reported separately; `total` is their weighted sum. A
    built-in term's field holds its size (penalties positive, subtracted); a term reward.terms leaves out is 0."""

    total: float
    pass_fraction: float
    difficulty_bonus: float = 0.0
    efficiency_penalty: float = 0.0
    interference_penalty: float = 0.0
    format_penalty: float = 0.0
    hardcoding_suspected: bool = False
    memory_penalty: float = 0.0
    extra: tuple[TermValue, ...] = ()  # the other registered terms reward.terms names, in its order


@dataclass(frozen=True, slots=True)
class Rollout:
    """One graded answer: the candidate, the sandbox's verdict (screening findings already among its events as
    'screen:<code>'), the reward, and the screen's finding codes. Made only by the grading path (spade.rollout)."""

    candidate: Candidate
    result: ExecResult
    reward: Reward
    findings: tuple[str, ...] = ()

    @property
    def task_id(self) -> str:
        return self.candidate.task_id

    @property
    def passed(self) -> bool:
        return self.result.passed

    def summary(self) -> dict[str, float]:
        """Numbers a trainer can log per answer (verl's reward_extra_info, OpenRLHF's extra_logs)."""
        return {
            "score": self.reward.total, "acc": float(self.passed), "pass_fraction": self.reward.pass_fraction,
            "hidden_score": self.result.hidden_score, "hardcoding_suspected": float(self.reward.hardcoding_suspected),
            "no_code": float(not self.candidate.code), "timed_out": float(self.result.timed_out),
        }


@dataclass(frozen=True, slots=True)
class UpdateResult:
    """What one policy update did, as the store records it. A trainer fills the training fields; the loop adds the
    checkpoint it saved, or why it skipped; the eval gate adds a rollback. Fields left None are not recorded."""

    method: str | None = None
    examples: int | None = None  # RFT: passing samples trained on; GRPO: completions scored
    steps: int | None = None
    loss_first: float | None = None
    loss_last: float | None = None
    seconds: float | None = None
    mean_reward: float | None = None  # GRPO: over the completions it generated and scored
    pass_rate: float | None = None
    fresh: int | None = None  # RFT: samples from this iteration
    replayed: int | None = None  # RFT: samples from earlier iterations
    checkpoint: str | None = None  # relative to the run directory
    skipped: str | None = None  # why no update ran
    rollback: bool | None = None  # the eval gate restored `restored` (for `reason`) and set the learning rate `lr`
    reason: str | None = None
    restored: str | None = None
    lr: float | None = None
    details: dict[str, Any] = field(default_factory=dict)  # a method's own figures (JSON values), stored beside
    rollouts: tuple[Rollout, ...] = ()  # GRPO's graded completions: committed with the iteration, not in the JSON

    def to_dict(self) -> dict[str, Any]:
        """The stored JSON object: every field that is set and the details, without the rollouts."""
        fields = {f: getattr(self, f) for f in self.__dataclass_fields__
                  if f not in ("rollouts", "details") and getattr(self, f) is not None}
        return {**self.details, **fields}


@dataclass(frozen=True)
class EvalReport:
    """pass@k of a policy on a fixed suite. `per_task` holds (task_id, samples n, correct c)."""

    suite: str
    n_tasks: int
    samples: int
    pass_at_k: dict[int, float]
    per_tag: dict[str, dict[int, float]]
    per_task: tuple[tuple[str, int, int], ...]

    def per_task_pass(self) -> dict[str, float]:
        """task id -> fraction of its samples that passed."""
        return {t: (c / n if n else 0.0) for t, n, c in self.per_task}

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict; k keys become strings ('1', '8') as JSON object keys must be."""
        return {
            "suite": self.suite,
            "n_tasks": self.n_tasks,
            "samples": self.samples,
            "pass_at_k": {str(k): v for k, v in self.pass_at_k.items()},
            "per_tag": {tag: {str(k): v for k, v in row.items()} for tag, row in self.per_tag.items()},
            "per_task": [{"task_id": t, "n": n, "c": c} for t, n, c in self.per_task],
        }


@dataclass(frozen=True, slots=True)
class Rejection:
    """A draft that did not become a task: the reason code and the sentence behind it."""

    draft_id: str
    family: str | None
    difficulty: float | None
    reason: str
    detail: str


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """One line of the audit trail: what (`kind`, `ref`) came from which model and prompt, with what result."""

    kind: str  # task, candidate, gate, rollback
    ref: str
    model: str
    prompt_hash: str
    result: str


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
