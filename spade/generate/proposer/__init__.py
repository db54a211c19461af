"""The LLM task proposer: a model proposes tasks (spec JSON or code-first), SPADE parses them into TaskDrafts.

Drafts then go through spade.validate like procedural ones; expected values come only from execution.
"""

from spade.generate.proposer.parse import Proposal, Rejection, parse_answer
from spade.generate.proposer.proposer import LLMProposer, ProposalBatch, ProposalStats, cross_check, pick_examples

__all__ = ["LLMProposer", "Proposal", "ProposalBatch", "ProposalStats", "Rejection", "cross_check", "parse_answer",
           "pick_examples"]
