"""SPADE: self-play in executable environments for code LLMs.

generate -> validate -> dedup -> store -> sample -> sandbox -> reward -> curriculum -> train -> evaluate,
wired by `spade.pipeline` and driven by `spade.cli`.
"""

__version__ = "0.1.0"
