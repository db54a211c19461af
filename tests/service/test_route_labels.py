"""Each route the service answers is counted in /metrics under its own label; only unknown paths are "other"."""

from __future__ import annotations

from fastapi.routing import APIRoute

from spade.config import SpadeConfig
from spade.groundtruth import ground_truth
from spade.service.app import create_app
from spade.service.guard import ROUTES
from spade.taskio import task_from_dict
from tests.service.helpers import Service

TASK = {"task_id": "double", "description": "double it", "signature": "def double(x: int) -> int:",
        "difficulty": 0.4, "test_cases": [{"input": [2], "expected": 4}]}


def test_every_route_of_the_app_has_its_own_label(tmp_path):
    app = create_app(SpadeConfig(), None, run_dir=str(tmp_path / "run")).app  # with the /v1/env routes
    paths = {route.path for route in app.routes if isinstance(route, APIRoute)}
    assert "/v1/openrlhf/reward" in paths and paths <= ROUTES, paths - ROUTES


def test_openrlhfs_reward_route_is_counted_under_its_own_label(tmp_path):
    svc = Service(tmp_path, {"executor": {"workers": 1, "memory_limit": "256m"}})
    try:
        label = ground_truth(task_from_dict(TASK))
        body = {"query": ["```python\ndef double(x):\n    return x + x\n```"], "prompts": ["q"], "labels": [label]}
        assert svc.request("POST", "/v1/openrlhf/reward", body)[0] == 200
        text = svc.request("GET", "/metrics")[2]
    finally:
        svc.stop()
    assert 'spade_requests_total{route="/v1/openrlhf/reward",status="200"}' in text, text
    assert 'route="other"' not in text
