"""The `spade` command's handlers that sit above the stages they drive: each reads its input files, runs stages and
prints the answer. They live here, not in the stages, so no stage imports the task kinds that plug into it."""
