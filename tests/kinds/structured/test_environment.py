"""Structured tasks through the environment API (the supply, the store, the grading path and the exports that
outside trainers use): drawn from the structured families, graded from completions, exported with their kind."""

from __future__ import annotations

import json

from spade.config import load_config
from spade.env import Environment


def test_the_environment_draws_grades_and_exports_structured_tasks(tmp_path):
    cfg = load_config(None, {"generation.families": ["structured_service", "structured_firewall"],
                             "executor.workers": 2})
    with Environment.open(tmp_path / "run", cfg) as env:
        drawn = env.draw(3)
        assert drawn and all(d.task.kind == "structured" for d in drawn)
        assert all(d.messages()[-1]["content"].count("```") >= 1 for d in drawn)  # asks for a fenced document
        ids = [d.task.task_id for d in drawn]
        answers = [f"```{env.task(i).entry_point}\n{env.task(i).reference_solution}```" for i in ids]
        graded, report = env.step(ids, answers[:-1] + ["```yaml\nnot: [a, valid\n```"])
        assert [g.passed for g in graded] == [True] * (len(ids) - 1) + [False]
        assert report.iteration == 0
    from spade.cli import main

    assert main(["export", str(tmp_path / "run"), "--format", "grpo"]) == 0
    rows = [json.loads(line) for line in (tmp_path / "run" / "exports" / "grpo.jsonl").read_text().splitlines()]
    assert len(rows) == len(ids) and all(json.loads(r["ground_truth"])["kind"] == "structured" for r in rows)
