"""The pool for executor.backend: the local fork-server pool, or the same workers as Ray actors.

in: an ExecutorConfig. out: a started SandboxPool (or its Ray subclass); both answer submit/run/score/run_program.
"""

from __future__ import annotations

from spade.config import ExecutorConfig
from spade.sandbox.pool import SandboxPool


def open_pool(cfg: ExecutorConfig) -> SandboxPool:
    if cfg.backend == "ray":
        from spade.sandbox.ray_pool import RaySandboxPool

        return RaySandboxPool(cfg)
    return SandboxPool(cfg)
