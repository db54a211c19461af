"""Sandbox backends (spade.registry.SANDBOX_BACKENDS, chosen by executor.backend): where the workers run.

in: an ExecutorConfig. out: a started SandboxPool (or a subclass); every backend answers submit/run/score/run_program.
local: the fork-server pool's workers are child processes here. ray: the same workers as Ray actors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from spade.registry import SANDBOX_BACKENDS

if TYPE_CHECKING:
    from spade.config import ExecutorConfig
    from spade.sandbox.pool import SandboxPool


def open_pool(cfg: ExecutorConfig) -> SandboxPool:
    """The pool executor.backend names, started."""
    return SANDBOX_BACKENDS.get(cfg.backend)(cfg)


def local(cfg: ExecutorConfig) -> SandboxPool:
    from spade.sandbox.pool import SandboxPool

    return SandboxPool(cfg)


def ray(cfg: ExecutorConfig) -> SandboxPool:
    from spade.sandbox.ray_pool import RaySandboxPool  # Ray is imported there only (the `ray` extra)

    return RaySandboxPool(cfg)


SANDBOX_BACKENDS.register("local", local)
SANDBOX_BACKENDS.register("ray", ray)
