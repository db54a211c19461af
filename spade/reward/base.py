"""What a reward term is: a named function of the graded outcome and the reward config, registered in
spade.registry.REWARD_TERMS; reward.terms chooses which ones make the total, reward.weights scales them.

In: an `Outcome` (the task, the answer, the sandbox's verdict and what the hidden tests decided). Out: the term's
size (>= 0); a penalty is subtracted from the total, anything else added.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from spade.records import ExecResult, Task
from spade.registry import REWARD_TERMS

if TYPE_CHECKING:
    from spade.config import RewardConfig


@dataclass(frozen=True, slots=True)
class Outcome:
    """One graded answer as every term sees it. Hidden tests decide `pass_fraction` (the fraction passed, or 1/0
    without partial credit; 0 on a timeout, so an endless loop is never a way to skip hard tests)."""

    task: Task
    code: str
    result: ExecResult
    pass_fraction: float
    solved: bool  # every public and hidden test passed, no timeout
    hardcoding: bool  # all public tests passed, a hidden one failed (docs/method.md#hidden-tests-and-hard-coding)

    @classmethod
    def of(cls, task: Task, code: str, result: ExecResult, cfg: RewardConfig) -> Outcome:
        hidden = result.hidden_score if task.hidden_test_cases else result.score
        solved = hidden == 1.0 and result.score == 1.0
        pass_fraction = hidden if cfg.partial_credit else float(solved)
        hardcoding = bool(task.hidden_test_cases) and result.public_score == 1.0 and result.hidden_score < 1.0
        if result.timed_out:
            pass_fraction, solved = 0.0, False
        return cls(task, code, result, pass_fraction, solved, hardcoding)


@dataclass(frozen=True, slots=True)
class RewardTerm:
    """A named term. `field` names the `Reward` field that reports it (the built-ins); other terms are reported
    in `Reward.extra`."""

    name: str
    size: Callable[[Outcome, RewardConfig], float]
    penalty: bool = False
    field: str | None = None


def register_term(term: RewardTerm) -> RewardTerm:
    """Make `term` available to reward.terms under its name; a name registered twice raises."""
    return REWARD_TERMS.register(term.name, term)
