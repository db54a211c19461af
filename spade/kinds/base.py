"""What a task kind is: the interface every kind implements, and the prompt record it shows the policy.

A kind owns how a task is shown (`prompt`), how an answer is taken from a completion (`extract`), what the
screen looks for before it runs (`screen`), how it is executed and judged (`execute`, one `ExecResult` per answer)
and what its validator checks (`validate`, and `validate_drafts` for a family's drafts, whose expected values
come from running the reference). Supply, controller, reward, store and evaluation are shared.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from spade.records import ExecResult, Task, TaskDraft

if TYPE_CHECKING:
    from concurrent.futures import Future

    from spade.config import GenerationConfig
    from spade.sandbox.program import ProgramJob, ProgramRun
    from spade.validate.outcome import ValidationOutcome


@dataclass(frozen=True, slots=True)
class Prompt:
    """What the policy is asked: chat `messages`, the text the answer is forced to start with, variant and hash;
    `stop` names when the answer is complete (spade.policy.stops: `fence`, the prefilled block is closed; `code`,
    a Python function's block is closed; `line`, the prefilled line is finished)."""

    messages: tuple[dict[str, str], ...]
    prefill: str
    variant: int
    hash: str
    stop: str = "fence"


def prompt_hash(messages: tuple[dict[str, str], ...], prefill: str) -> str:
    """Short sha256 of the canonical rendering, independent of any tokenizer, for the audit trail."""
    canonical = json.dumps({"messages": list(messages), "prefill": prefill}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()[:16]  # a task's text may be anything


class Scorer(Protocol):
    """The sandbox pool as a kind sees it (spade.sandbox.SandboxPool): function candidates scored against a task's
    tests, or whole programs run (a kind whose answers are not Python functions runs its judge as a program)."""

    def score_many(self, items: Sequence[tuple[Task, str]], time_limits: Sequence[Sequence[float] | None] | None = None,
                   on_done: Callable[[int], None] | None = None) -> list[ExecResult]: ...

    def submit_program(self, job: ProgramJob) -> Future[ProgramRun]: ...

    def run_program(self, job: ProgramJob) -> ProgramRun: ...


class TaskKind(Protocol):
    """One kind of task. Registered in spade.kinds.KINDS under `name`, which tasks carry as `Task.kind`."""

    name: str

    def prompt(self, task: Task, variant: int) -> Prompt:
        """The chat prompt for `task` in phrasing `variant` (taken modulo the kind's number of phrasings)."""
        ...

    def extract(self, task: Task, completion: str, *, prefilled: bool = True) -> str:
        """The answer in a completion ('' when there is none: scored as a format failure). `prefilled`: the
        completion continues after the prompt's prefill."""
        ...

    def screen(self, answer: str) -> tuple[str, ...]:
        """Finding codes (spade.audit.FINDINGS) for what the answer tries to do, before it runs."""
        ...

    def execute(self, pool: Scorer, items: Sequence[tuple[Task, str]],
                on_done: Callable[[int], None] | None = None) -> list[ExecResult]:
        """Run and judge every (task, answer), in order; an answer's failure is its verdict, never an exception.
        on_done(i) as each finishes."""
        ...

    def validate(self, tasks: Sequence[Task], pool: Scorer | None, cfg: GenerationConfig) -> list[ValidationOutcome]:
        """Whether each task is sound (its tests can be failed and its expected values hold), in order."""
        ...

    def validate_drafts(self, drafts: Sequence[TaskDraft], pool: Scorer,
                        cfg: GenerationConfig) -> list[ValidationOutcome]:
        """Drafts (a family's output: inputs, no expected values) made Tasks of this kind by running the reference
        in the sandbox for every expected value, then checked as `validate` does; in order."""
        ...
