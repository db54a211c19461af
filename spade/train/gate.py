"""The eval gate: after each evaluated checkpoint, keep going, record a new best, or roll back to the best.

In: (checkpoint name, dev pass@1, per-task dev scores) observations, a margin and a test level. Out: a
`GateDecision`. It rolls back only on a regression beyond noise: pass@1 more than `margin` below the best AND a
one-sided exact sign test on the tasks both were graded on rejects "no worse" at level `alpha`. Each decision
states the paired bootstrap 95% CI of new - best. A pure decision with a JSON state that rides in the run's
iteration state; restoring the weights and lowering the learning rate are the caller's to do, in that order.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from spade.errors import TrainingError
from spade.evaluate.stats import paired_bootstrap, paired_scores, sign_test_worse


@dataclass(frozen=True, slots=True)
class GateDecision:
    """rollback: restore `best`. new_best: the observed checkpoint is now the best. reason: one line for logs."""

    rollback: bool
    best: str
    reason: str
    new_best: bool = False


@dataclass
class EvalGate:
    """Rolls back when dev pass@1 drops more than `margin` below the best seen and the paired sign test's p-value
    is at most `alpha` (without per-task scores, on the margin alone); a strictly higher score is a new best."""

    margin: float
    alpha: float = 1.0
    best_score: float | None = None
    best: str | None = None
    best_tasks: dict[str, float] | None = None
    history: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not 0 <= self.margin <= 1:
            raise TrainingError(f"eval gate margin = {self.margin} must lie in [0, 1] (eval.rollback_margin)")
        if not 0 < self.alpha <= 1:
            raise TrainingError(f"eval gate level = {self.alpha} must lie in (0, 1] (eval.rollback_alpha)")

    def observe(self, checkpoint: str, pass_at_1: float, per_task: Mapping[str, float] | None = None) -> GateDecision:
        """Decide on one evaluated checkpoint; `per_task` maps each dev task to its pass fraction."""
        if not 0 <= pass_at_1 <= 1:
            raise ValueError(f"pass@1 = {pass_at_1} is not a fraction")  # a caller's bug, not a user's mistake
        paired = self._paired(per_task)
        ci = f"; new - best {paired[0].describe()}, sign test p = {paired[1]:.3g}" if paired else ""
        # On the tasks both were graded on when there are per-task scores (a run's dev split loses the tasks it
        # trains on), else on the two pass@1 figures.
        gain = paired[0].diff if paired else pass_at_1 - (self.best_score or 0.0)
        if self.best is None or self.best_score is None or gain > 0:
            previous = "none" if self.best_score is None else f"{self.best_score:.3f}"
            self.best, self.best_score = checkpoint, pass_at_1
            self.best_tasks = dict(per_task) if per_task is not None else None
            decision = GateDecision(False, checkpoint, f"new best pass@1 {pass_at_1:.3f} (was {previous}){ci}", True)
        elif (gain >= -self.margin) if paired else (pass_at_1 >= self.best_score - self.margin):
            decision = GateDecision(False, self.best, (
                f"pass@1 {pass_at_1:.3f} is within {self.margin:.3f} of the best {self.best_score:.3f}{ci}"))
        elif paired is not None and paired[1] > self.alpha:
            decision = GateDecision(False, self.best, (
                f"pass@1 {pass_at_1:.3f} is below the best {self.best_score:.3f} of {self.best} but within noise "
                f"(p > {self.alpha:g}){ci}"))
        else:
            decision = GateDecision(True, self.best, (
                f"pass@1 {pass_at_1:.3f} is more than {self.margin:.3f} below the best {self.best_score:.3f} "
                f"of {self.best}{ci}; rolling back"))
        self.history.append({"checkpoint": checkpoint, "pass_at_1": pass_at_1, "rollback": decision.rollback,
                             "new_best": decision.new_best, "tasks": tasks_digest(per_task or ()),
                             "p_worse": paired[1] if paired else None})
        return decision

    def _paired(self, per_task: Mapping[str, float] | None) -> tuple[Any, float] | None:
        """(bootstrap CI of new - best, sign-test p that new is worse) over the shared tasks, when both have them."""
        if per_task is None or self.best_tasks is None:
            return None
        _, old, new = paired_scores(self.best_tasks, per_task)
        if not old:
            return None
        return paired_bootstrap(old, new), sign_test_worse(old, new)

    @property
    def rollbacks(self) -> int:
        return sum(h["rollback"] for h in self.history)

    def state(self) -> dict[str, Any]:
        """JSON-able state; `EvalGate.from_state(gate.state())` continues exactly where this one is."""
        return {"margin": self.margin, "alpha": self.alpha, "best_score": self.best_score, "best": self.best,
                "best_tasks": dict(self.best_tasks) if self.best_tasks is not None else None,
                "history": [dict(h) for h in self.history]}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> EvalGate:
        best_tasks = state.get("best_tasks")
        return cls(margin=float(state["margin"]), alpha=float(state.get("alpha", 1.0)),
                   best_score=state.get("best_score"), best=state.get("best"),
                   best_tasks=dict(best_tasks) if best_tasks is not None else None,
                   history=[dict(h) for h in state.get("history", [])])


def tasks_digest(task_ids: Iterable[str]) -> str:
    """Which tasks an observation was graded on, in a few bytes (the history rides in every iteration's state)."""
    ids = sorted(task_ids)
    return f"{len(ids)}:{hashlib.sha256(chr(0).join(ids).encode()).hexdigest()[:16]}"


def lower_lr(trainer: Any, factor: float) -> float:
    """Multiply every param group's learning rate by `factor` (0 < factor <= 1); returns the new first-group lr.

    Call it after `load_checkpoint`: restoring a checkpoint also restores the optimizer's saved learning rate.
    """
    if not 0 < factor <= 1:
        raise TrainingError(f"eval.lower_lr_on_rollback = {factor} must lie in (0, 1]; 1 keeps the learning rate")
    trainer.prepare()
    for group in trainer.optimizer.param_groups:
        group["lr"] *= factor
    return float(trainer.optimizer.param_groups[0]["lr"])
