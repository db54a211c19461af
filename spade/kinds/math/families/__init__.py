"""The math kind's procedural families, one module each; importing this package registers them all."""

from spade.kinds.math.families import arithmetic, combinatorics, equations, polynomials, sequences  # noqa: F401
