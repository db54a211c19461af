"""The ground truth an external trainer carries per prompt: a task's tests as one JSON string, and back.

In: a `Task`. Out: JSON holding the entry point, difficulty, public and hidden tests and the reference's CPU time
(what `spade.reward.compute_reward` needs). Training-side data only: it is never placed in a prompt.
"""

from __future__ import annotations

import json
from typing import Any

from spade.errors import TaskFormatError
from spade.records import Task, TestCase

VERSION = 1


def ground_truth(task: Task) -> str:
    """The JSON ground truth of `task` (sorted keys, so equal tasks give equal strings)."""
    data: dict[str, Any] = {
        "spade_ground_truth": VERSION,
        "task_id": task.task_id,
        "entry_point": task.entry_point,
        "difficulty": task.difficulty,
        "test_cases": [_case(c) for c in task.test_cases],
        "hidden_test_cases": [_case(c) for c in task.hidden_test_cases],
    }
    if "reference_cpu_s" in task.params:
        data["reference_cpu_s"] = task.params["reference_cpu_s"]
    return json.dumps(data, sort_keys=True, ensure_ascii=False)


def task_from_ground_truth(text: str) -> Task:
    """A scoring-only `Task` rebuilt from `ground_truth` output; TaskFormatError names what is wrong."""
    try:
        data = json.loads(text)
    except (TypeError, json.JSONDecodeError):
        raise TaskFormatError("ground_truth is not JSON; pass the string SPADE's exporter wrote") from None
    if not isinstance(data, dict) or data.get("spade_ground_truth") != VERSION:
        raise TaskFormatError(
            f"ground_truth is not SPADE ground truth version {VERSION}; re-export the data with `spade export`"
        )
    params = {"reference_cpu_s": data["reference_cpu_s"]} if "reference_cpu_s" in data else {}
    entry = str(data["entry_point"])
    return Task(
        task_id=str(data["task_id"]), description="", signature=f"def {entry}(*args):", entry_point=entry,
        difficulty=float(data["difficulty"]),
        test_cases=tuple(_from_case(c) for c in data["test_cases"]),
        hidden_test_cases=tuple(_from_case(c) for c in data["hidden_test_cases"]),
        params=params,
    )


def _case(case: TestCase) -> dict[str, Any]:
    return {"input": list(case.args), "expected": case.expected}


def _from_case(case: dict[str, Any]) -> TestCase:
    return TestCase(args=tuple(case["input"]), expected=case["expected"])
