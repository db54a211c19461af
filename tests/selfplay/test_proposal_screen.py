"""Proposals are generated code: the audit screen (spade.audit.screen_code) sees them before anything runs them,
and a finding is the proposal's verdict (invalid, penalised), never a stored task, a training row or an export."""

from __future__ import annotations

import json

import pytest

from spade.config import load_config
from spade.env import Environment
from spade.export.commands import export_run

HOSTILE = {
    "passwd": "def f(n):\n    return len(open('/etc/passwd').read()) + n\n\nprint(f(1))\nprint(f(2))\nprint(f(3))\n",
    "socket": ("import socket\n\ndef f(n):\n    s = socket.socket()\n    return n * 2\n\n"
               "print(f(1))\nprint(f(2))\nprint(f(3))\n"),
    "listing": "import os\n\ndef f(n):\n    return len(os.listdir('/')) + n\n\nprint(f(1))\nprint(f(2))\nprint(f(3))\n",
    "eval": "def f(s):\n    return eval(s) + 1\n\nprint(f('1+2'))\nprint(f('3*4'))\nprint(f('7-5'))\n",
}
CLEAN = "def f(n):\n    return n * 3 + 1\n\nprint(f(1))\nprint(f(2))\nprint(f(5))\nprint(f(8))\n"


@pytest.fixture
def env(tmp_path):
    cfg = load_config(None, {"executor.workers": 2, "generation.tasks_per_iteration": 4})
    with Environment.open(tmp_path / "run", cfg) as e:
        yield e


def test_hostile_proposals_are_refused_before_they_run_and_penalised(env):
    prompts = env.propose(len(HOSTILE) + 1, mode="induction")
    completions = [f"```python\n{body}```" for body in [*HOSTILE.values(), CLEAN]]
    verdicts = env.submit_proposals(prompts, completions)
    hostile, clean = verdicts[:-1], verdicts[-1]
    for name, v in zip(HOSTILE, hostile):
        assert (v.valid, v.reason, v.task_id) == (False, "screened", None), name
        assert v.reward == -env.config.selfplay.invalid_penalty < 0, name
    assert clean.valid and clean.task_id, clean
    store_rows = env._store().query("SELECT reason, detail FROM rejections WHERE reason = 'screened'")
    assert len(store_rows) == len(HOSTILE)
    assert {"system_read", "network", "dynamic_exec"} <= {code for _, d in store_rows for code in
                                                          d.rsplit("found ", 1)[1].split(" in ")[0].split(", ")}


def test_a_screened_proposal_is_no_proposer_training_or_export_row(env, tmp_path):
    prompts = env.propose(len(HOSTILE) + 1, mode="induction")
    verdicts = env.submit_proposals(prompts, [f"```python\n{b}```" for b in [*HOSTILE.values(), CLEAN]])
    task = verdicts[-1].drawn.task
    # The solver passes half the time: the clean proposal earns learnability and becomes a proposer row.
    right = "```python\ndef f(n):\n    return n * 3 + 1\n```"
    wrong = "```python\ndef f(n):\n    return n\n```"
    env.report(env.score([task, task], [right, wrong], prefilled=False))
    out = tmp_path / "proposer.jsonl"
    export_run(env.run_dir, "proposer", out)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    text = json.dumps(rows)
    assert rows and "n * 3 + 1" in text
    for marker in ("/etc/passwd", "socket", "listdir", "eval("):
        assert marker not in text
