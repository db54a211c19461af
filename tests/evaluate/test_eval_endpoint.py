"""`spade eval --base-url`: the model behind an OpenAI-compatible endpoint is what gets evaluated, and the help
says how, naming every suite."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from spade.cli import main
from tests.serving.helpers import ScriptedServer, chat_body

ROOT = Path(__file__).resolve().parents[2]
TASK = {"task_id": "add", "description": "Return the sum of two integers.", "signature": "def add(a: int, b: int) -> int:",
        "difficulty": 0.1, "test_cases": [{"input": [1, 2], "expected": 3}, {"input": [-4, 4], "expected": 0}]}


def test_an_openai_compatible_endpoint_is_evaluated(tmp_path: Path, capsys) -> None:
    suite = tmp_path / "suite.jsonl"
    suite.write_text(json.dumps(TASK) + "\n")
    with ScriptedServer([(200, chat_body("```python\ndef add(a, b):\n    return a + b\n```"))]) as server:
        code = main(["eval", "--suite", str(suite), "--base-url", server.base_url, "--api-model", "scripted",
                     "--set", "executor.workers=1"])
    assert code == 0
    assert len(server.requests) == 1 and server.requests[0]["model"] == "scripted"
    out = capsys.readouterr().out
    assert "pass@1" in out and "1.000" in out


def test_a_checkpoint_with_an_endpoint_is_refused_in_one_line(tmp_path: Path, capsys) -> None:
    code = main(["eval", "--base-url", "http://127.0.0.1:9/v1", "--checkpoint", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and "drop --checkpoint, or --base-url" in err and err.count("\n") == 1


def test_eval_help_documents_the_endpoint_and_names_every_suite() -> None:
    from spade.evaluate.suites import suite_names

    env = {**os.environ, "COLUMNS": "1000", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "spade", "eval", "--help"], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=60)
    assert done.returncode == 0 and "any OpenAI-compatible endpoint" in done.stdout and "--base-url" in done.stdout
    listed = done.stdout.split("the suites: ", 1)[1].split("\n", 1)[0].split(", ")
    assert "heldout-unseen" in listed and set(listed) == set(suite_names())
