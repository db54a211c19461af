"""A run directory's files below both of its writers, the loop (spade.pipeline) and the environment API (spade.env):
its layout, creation and reopening (layout), and where each iteration's metrics go (sinks)."""
