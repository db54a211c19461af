"""The run's SQLite store: `RunStore` and the per-iteration write buffer `IterationWrite` (typed records)."""

from spade.store.db import DB_NAME, RunStore, exec_result_to_dict
from spade.store.iteration import (
    IterationTask,
    IterationWrite,
    Origin,
    ProposalRecord,
    ProposalReward,
    RunState,
    TaskUse,
)

__all__ = ["DB_NAME", "IterationTask", "IterationWrite", "Origin", "ProposalRecord", "ProposalReward", "RunState", "RunStore", "TaskUse", "exec_result_to_dict"]
