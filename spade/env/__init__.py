"""SPADE as an environment for outside trainers (TRL, verl, OpenRLHF): draw tasks at the controller's difficulty,
grade answers as `spade run` does, report them so the controller moves and the run records them."""

from spade.env.environment import Drawn, Environment, Report
from spade.env.grading import Answer, Graded, grade

__all__ = ["Answer", "Drawn", "Environment", "Graded", "Report", "grade"]
