"""Procedural families of program tasks, one file each, named program_*: a statement with its input and output
format, a reference program, and stdin inputs drawn from the variant's knobs. Importing this package registers
them."""

from spade.kinds.program.families import commands, grid, numbers, records, words  # noqa: F401
