"""The eval gate: after each evaluated checkpoint, keep going, record a new best, or roll back to the best.

In: (checkpoint name, eval pass@1) observations and a margin. Out: a `GateDecision`. A pure decision with a
JSON state (best score, best checkpoint, history) that rides in the run's iteration state; restoring the
weights (`load_checkpoint`) and lowering the learning rate (`lower_lr`) are the caller's to do, in that order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from spade.errors import TrainingError


@dataclass(frozen=True, slots=True)
class GateDecision:
    """rollback: restore `best`. new_best: the observed checkpoint is now the best. reason: one line for logs."""

    rollback: bool
    best: str
    reason: str
    new_best: bool = False


@dataclass
class EvalGate:
    """Rolls back when pass@1 drops more than `margin` below the best seen; a strictly higher score is a new best."""

    margin: float
    best_score: float | None = None
    best: str | None = None
    history: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not 0 <= self.margin <= 1:
            raise TrainingError(f"eval gate margin = {self.margin} must lie in [0, 1] (eval.rollback_margin)")

    def observe(self, checkpoint: str, pass_at_1: float) -> GateDecision:
        if not 0 <= pass_at_1 <= 1:
            raise ValueError(f"pass@1 = {pass_at_1} is not a fraction")  # a caller's bug, not a user's mistake
        if self.best is None or self.best_score is None or pass_at_1 > self.best_score:
            previous = "none" if self.best_score is None else f"{self.best_score:.3f}"
            self.best, self.best_score = checkpoint, pass_at_1
            decision = GateDecision(False, checkpoint, f"new best pass@1 {pass_at_1:.3f} (was {previous})", True)
        elif pass_at_1 < self.best_score - self.margin:
            decision = GateDecision(True, self.best, (
                f"pass@1 {pass_at_1:.3f} is more than {self.margin:.3f} below the best {self.best_score:.3f} "
                f"of {self.best}; rolling back"))
        else:
            decision = GateDecision(False, self.best, (
                f"pass@1 {pass_at_1:.3f} is within {self.margin:.3f} of the best {self.best_score:.3f}"))
        self.history.append({"checkpoint": checkpoint, "pass_at_1": pass_at_1, "rollback": decision.rollback,
                             "new_best": decision.new_best})
        return decision

    @property
    def rollbacks(self) -> int:
        return sum(h["rollback"] for h in self.history)

    def state(self) -> dict[str, Any]:
        """JSON-able state; `EvalGate.from_state(gate.state())` continues exactly where this one is."""
        return {"margin": self.margin, "best_score": self.best_score, "best": self.best,
                "history": [dict(h) for h in self.history]}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> EvalGate:
        return cls(margin=float(state["margin"]), best_score=state.get("best_score"), best=state.get("best"),
                   history=[dict(h) for h in state.get("history", [])])


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
