"""Wires the stages into the co-evolution loop (`loop.run`), and reads runs back (`status`)."""
