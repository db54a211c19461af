"""Code-reasoning tasks through the environment API (spade.env): a TRL/verl user drawing from the cold-start
families gets deduction and abduction tasks graded by execution, from completions without SPADE's prefill."""

from __future__ import annotations

from spade.config import load_config
from spade.env import Environment


def test_an_outside_trainer_draws_and_grades_code_reasoning_tasks(tmp_path):
    cfg = load_config(None, {"generation.families": ["cr_deduction", "cr_abduction"],
                             "generation.tasks_per_iteration": 4, "evolution.replay_ratio": 0.0,
                             "executor.workers": 2})
    with Environment.open(tmp_path / "run", cfg) as env:
        drawn = env.draw()
        assert drawn and {d.task.kind for d in drawn} == {"code_reasoning"}
        right, wrong = [], []
        for d in drawn:
            t, query = d.task, d.task.test_cases[0]
            call = f"{t.entry_point}({', '.join(repr(a) for a in query.args)})"
            right.append(f"```python\nassert {call} == {query.expected!r}\n```")
            wrong.append(f"```python\nassert {call} == {[query.expected, 'no']!r}\n```" if t.params["mode"] == "deduction"
                         else f"```python\nassert {t.entry_point}(object) == 1\n```")
        graded = env.score([d.task for d in drawn], right, prefilled=False)
        assert all(g.passed for g in graded), [(d.task.params, g.result) for d, g in zip(drawn, graded)]
        assert not any(g.passed for g in env.score([d.task for d in drawn], wrong, prefilled=False))
        env.report(graded)
