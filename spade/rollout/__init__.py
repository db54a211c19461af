"""Rollouts: the one grading path from (task, completion) to a `Rollout` (spade.rollout.grade), used by the loop,
every trainer, the evaluator and the exported reward functions."""

from spade.rollout.grade import Grader, audit_line

__all__ = ["Grader", "audit_line"]
