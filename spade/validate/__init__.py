"""Validation of tasks: static checks, then execution of the reference in the sandbox with mutant testing."""

from spade.validate.outcome import Problem, ValidationOutcome

__all__ = ["Problem", "ValidationOutcome"]
