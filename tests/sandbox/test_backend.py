"""Sandbox backends are a registry (executor.backend): the built-ins are local and ray; a backend registered by a
plug-in is chosen by name; an unknown name is refused with the known ones listed."""

import pytest

from spade.config import ExecutorConfig, load_config
from spade.errors import ConfigError
from spade.records import ExecStatus
from spade.registry import SANDBOX_BACKENDS
from spade.sandbox import SandboxPool
from spade.sandbox.backend import open_pool
from tests.sandbox.conftest import CFG, CORRECT, secret_task

OPENED: list[ExecutorConfig] = []


def _recording(cfg: ExecutorConfig) -> SandboxPool:
    """A test-local backend: the local pool, remembering that it was chosen."""
    OPENED.append(cfg)
    return SandboxPool(cfg)


SANDBOX_BACKENDS.register("test_recording", _recording)


def test_an_unknown_sandbox_backend_is_refused_with_the_known_ones_listed():
    with pytest.raises(ConfigError, match=r"executor.backend.*unknown sandbox backend 'docker'; known: local, ray"):
        load_config(None, {"executor.backend": "docker"})


def test_a_registered_backend_is_opened_by_name_and_runs_candidates():
    cfg = CFG.model_copy(update={"backend": "test_recording", "workers": 1})
    with open_pool(cfg) as pool:
        assert OPENED == [cfg] and type(pool) is SandboxPool
        assert pool.score(secret_task(), CORRECT).status is ExecStatus.PASSED
