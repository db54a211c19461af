"""`spade serve --run-dir DIR`: the live curriculum over HTTP. A trainer draws tasks (public tests only), posts its
completions, and the run records them as `spade run` would: the report's iteration is committed, `spade status`
reads it, and a retried report (same key) counts once."""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest

from tests.service.helpers import ROOT, Service

CONFIG = {"executor": {"workers": 1, "memory_limit": "256m"},
          "generation": {"tasks_per_iteration": 2, "families": ["list_aggregate", "palindrome"]}}


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("live")
    svc = Service(tmp, CONFIG, args=("--run-dir", str(tmp / "run")))
    svc.run_dir = tmp / "run"
    yield svc
    assert svc.stop() == 128 + signal.SIGTERM


def test_draw_shows_public_tests_only_and_step_reports_back(live):
    status, _, body = live.request("POST", "/v1/env/draw", {"count": 2})
    assert status == 200, body
    tasks = body["tasks"]
    assert tasks and all(t["prompt"][-1]["role"] == "user" and t["origin"] in ("generated", "replay") for t in tasks)
    assert all("hidden_test_cases" not in t and "reference_solution" not in t for t in tasks)
    ids = [t["task_id"] for t in tasks]
    completions = ["```python\ndef nothing():\n    pass\n```"] * len(ids)
    status, _, stepped = live.request("POST", "/v1/env/step", {"task_ids": ids, "completions": completions,
                                                               "key": "batch-1"})
    assert status == 200, stepped
    assert [r["task_id"] for r in stepped["results"]] == ids
    assert all(r["status"] == "no_entry_point" and r["reward"]["format_penalty"] > 0 for r in stepped["results"])
    report = stepped["report"]
    assert report["committed"] is True and report["iteration"] >= 0
    again = live.request("POST", "/v1/env/step", {"task_ids": ids, "completions": completions, "key": "batch-1"})[2]
    assert again["report"]["committed"] is False  # a retried report counts once
    out = subprocess.run([sys.executable, "-m", "spade", "status", str(live.run_dir), "--json"], capture_output=True,
                         text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)  # the run the service wrote reads like a loop's
    assert live.request("GET", "/v1/env/status")[2]["difficulties"]


def test_a_step_with_mismatched_lists_or_unknown_tasks_is_refused(live):
    status, _, body = live.request("POST", "/v1/env/step", {"task_ids": ["a"], "completions": []})
    assert status == 422 and "one each" in str(body["detail"])
    status, _, body = live.request("POST", "/v1/env/step", {"task_ids": ["never-drawn"], "completions": ["x"]})
    assert status == 404 and "never-drawn" in body["detail"]
