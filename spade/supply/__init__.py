"""The task supply, its own stage between generation and sampling: drafts from the families (and the proposer, and
seed tasks) validated by each task kind in the sandbox, deduplicated, screened for contamination. Used alike by the
loop (spade.pipeline) and the environment API (spade.env)."""

from spade.supply.supply import TaskSupply

__all__ = ["TaskSupply"]
