"""Run from outside the source tree in a venv that holds only `pip install .` (no extras): the core works
without torch: the environment API, the trainers' reward functions, the exports' JSON formats and the CLI."""

import importlib.util
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import spade

assert "site-packages" in spade.__file__, f"imported {spade.__file__}, not the installed package"
for heavy in ("torch", "transformers", "trl", "datasets"):
    assert importlib.util.find_spec(heavy) is None, f"{heavy} is installed: the core install must not need it"

from spade.config import load_config  # noqa: E402
from spade.env import Environment  # noqa: E402
from spade.evaluate import load_suite  # noqa: E402
from spade.export.reward_fn import compute_score, reward_func  # noqa: E402
from spade.groundtruth import ground_truth  # noqa: E402

task = next(t for t in load_suite("builtin") if t.task_id == "builtin/sum_evens")
answer = f"```python\n{task.reference_solution}\n```"
assert compute_score("spade", answer, ground_truth(task))["acc"] == 1.0
assert reward_func(["p" + answer], ["p"], [ground_truth(task)])["rewards"][0] > 1.0  # a list without torch

with tempfile.TemporaryDirectory() as tmp:
    cfg = load_config(None, {"generation.families": ["list_transform"], "executor.workers": 2})
    with Environment.open(Path(tmp) / "run", cfg) as env:
        drawn = env.draw(2)
        ids = [d.task.task_id for d in drawn]
        graded, report = env.step(ids, [f"```python\n{env.task(i).reference_solution}\n```" for i in ids])
        assert all(g.passed for g in graded) and report.iteration == 0
    out = subprocess.run([sys.executable, "-m", "spade", "export", str(Path(tmp) / "run"), "--format", "grpo"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in (Path(tmp) / "run" / "exports" / "grpo.jsonl").read_text().splitlines()]
    assert len(rows) == len(drawn) and "ground_truth" in rows[0]
print("light install: environment, reward functions, exports and CLI work without torch")
