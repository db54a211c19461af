"""The run's SQLite store: `RunStore` and the per-iteration write buffer `IterationWrite`."""

from spade.store.db import DB_NAME, IterationWrite, RunStore, exec_result_to_dict

__all__ = ["DB_NAME", "IterationWrite", "RunStore", "exec_result_to_dict"]
