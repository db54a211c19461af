"""Export a run's data for other trainers: SFT, DPO, GRPO prompts, verl parquet, OpenRLHF JSONL.

In: a run directory (its SQLite store). Out: one file per call (`export_command`). `reward_fn` is the reward
entry point those trainers call back into: SPADE's sandbox and reward on the hidden tests.
"""

from spade.export.commands import FORMATS, export_command, export_run

__all__ = ["FORMATS", "export_command", "export_run"]
