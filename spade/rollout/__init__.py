"""Rollouts: the one grading path from (task, completion) to a `Rollout` (spade.rollout.grade), used by the loop,
every trainer, the evaluator and the exported reward functions; an iteration's attempts (spade.rollout.attempt:
sample, then grade); and the metrics of a batch of rollouts (spade.rollout.metrics)."""

from spade.rollout.attempt import attempt
from spade.rollout.grade import Grader, audit_line

__all__ = ["Grader", "attempt", "audit_line"]
