"""SPADE as an environment for outside trainers (TRL, verl, OpenRLHF): draw tasks at the controller's difficulty,
grade answers as `spade run` does, report them so the controller moves and the run records them; hand out
self-play's proposer prompts and judge their proposals."""

from spade.env.environment import Drawn, Environment, Report
from spade.env.grading import Answer, Graded, grade
from spade.env.proposer import ProposalVerdict, ProposerPrompt

__all__ = ["Answer", "Drawn", "Environment", "Graded", "ProposalVerdict", "ProposerPrompt", "Report", "grade"]
