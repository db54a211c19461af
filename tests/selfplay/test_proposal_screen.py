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


def test_a_proposal_whose_f_disagrees_with_itself_on_a_solvers_input_is_its_fault():
    """The abduction judge runs f twice on the solver's input (spade.kinds.code_reasoning.judge); a disagreement
    (event task_nondeterministic) makes the proposal invalid and pays the invalid penalty, never learnability."""
    from spade.kinds.code_reasoning.proposer_role import proposer_task
    from spade.records import Task
    from spade.selfplay.engine import SelfPlay
    from spade.selfplay.judging import judged
    from spade.store import IterationWrite

    cfg = load_config(None)
    sp = SelfPlay(cfg, None, None)  # type: ignore[arg-type]
    steady, coin = (judged(f"p-{n}", proposer_task(f"proposer-0-{n}", 0.3, [], "abduction"), "x): ...", True)
                    for n in ("steady", "coin"))
    for e, tid in ((steady, "t-steady"), (coin, "t-coin")):
        e.valid, e.reason, e.task = True, "ok", Task(tid, "", "def f(x)", "f", 0.3)
    sp.pending = [steady, coin]
    w = IterationWrite(iteration=0)
    sp._blame(w, {"t-coin"})
    assert (coin.valid, coin.reason) == (False, "judge_nondeterministic") and steady.valid
    rec = coin.record(0, None, "m", cfg.selfplay, 0.5)
    assert rec.reward == -cfg.selfplay.invalid_penalty and rec.learnability == 0.0
    assert steady.record(0, None, "m", cfg.selfplay, 0.5).learnability == 0.5
