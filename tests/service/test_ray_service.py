"""`spade serve` fronting a Ray-backed pool (executor.backend: ray): the service starts its own local Ray instance
with two sandbox actors and answers /run_code with SandboxFusion's verdicts."""

from __future__ import annotations

import signal

import pytest

from tests.service.helpers import SandboxFusionClient, Service

pytest.importorskip("ray")
pytestmark = pytest.mark.slow  # a Ray instance takes ~15 s to start on 2 loaded cores


def test_the_service_runs_programs_on_ray_actors(tmp_path):
    svc = Service(tmp_path, {"executor": {"workers": 2, "backend": "ray", "memory_limit": "256m"},
                             "serve": {"max_memory_mb": 256}})
    try:
        client = SandboxFusionClient(svc)
        assert client.check("print(sum(map(int, input().split())))\n", "2 3\n", "5\n") is True
        assert client.check("print(1)\n", "", "2\n") is False
        assert client.check("while True: pass\n", "", "", timeout=1) == -3
        assert client.check("x = bytearray(600 << 20)\n", "", "") == -2
        status = svc.request("GET", "/v1/status")[2]
        assert status["workers"] == 2 and all(status["layers"].values())
    finally:
        assert svc.stop() == 128 + signal.SIGTERM
