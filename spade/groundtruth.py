"""The ground truth an external trainer carries per prompt: a task's tests as one JSON string, and back.

In: a `Task`. Out: JSON holding the entry point, difficulty, public and hidden tests and the reference's CPU time
(what `spade.reward.compute_reward` needs), and for a task of another kind than a Python function its `kind` and
`params` (what its kind judges by, e.g. a SQL task's `ordered`). Training-side data only: it is never placed in a prompt.
With `verl_code=True` the same object also carries verl's common code format (the APPS-style call-based form its
`prime_code` and SandboxFusion scorers read): `fn_name`, and per test `inputs[i]` (one JSON value per argument, one
per line) and `outputs[i]` (the JSON of the return value). Tasks whose values JSON cannot carry exactly (tuples,
sets, non-string keys, non-finite floats), whose function takes no argument or that are not Python function tasks
get SPADE's keys only.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from typing import Any

from spade.errors import TaskFormatError
from spade.records import PYTHON_FUNCTION, Task, TestCase

VERSION = 1

DATA_SOURCE = "spade"  # the data_source of every exported row (verl reads it)


def ground_truth(task: Task, *, verl_code: bool = False) -> str:
    """The JSON ground truth of `task` (sorted keys, so equal tasks give equal strings)."""
    data: dict[str, Any] = {
        "spade_ground_truth": VERSION,
        "task_id": task.task_id,
        "entry_point": task.entry_point,
        "difficulty": task.difficulty,
        "test_cases": [_case(c) for c in task.test_cases],
        "hidden_test_cases": [_case(c) for c in task.hidden_test_cases],
    }
    if task.reference_cpu_s is not None:
        data["reference_cpu_s"] = task.reference_cpu_s
    if task.kind != PYTHON_FUNCTION:  # absent for Python functions: ground truth written before kinds reads the same
        data["kind"], data["params"] = task.kind, task.params
        if task.params.get("mode") == "abduction" and task.reference_solution:  # judged by running the program,
            data["reference_solution"] = task.reference_solution  # which an abduction prompt shows anyway
    if verl_code:
        data.update(verl_code_truth(task) or {})
    return json.dumps(data, sort_keys=True, ensure_ascii=False)


def verl_code_truth(task: Task) -> dict[str, Any] | None:
    """verl's call-based code ground truth over every test (public, then hidden); None when JSON cannot carry the
    task's values exactly, or the function takes no argument (an empty input line would not parse)."""
    cases = (*task.test_cases, *task.hidden_test_cases)
    if task.kind != PYTHON_FUNCTION or not cases or not all(c.args and all(map(_json_exact, c.args)) and _json_exact(c.expected) for c in cases):
        return None
    return {
        "fn_name": task.entry_point,
        "inputs": ["\n".join(json.dumps(a, ensure_ascii=False) for a in c.args) for c in cases],
        "outputs": [json.dumps(c.expected, ensure_ascii=False) for c in cases],
    }


def _json_exact(value: Any) -> bool:
    """JSON gives `value` back with the same types (a tuple would come back a list, a set not at all)."""
    if value is None or type(value) in (str, bool, int):
        return True
    if type(value) is float:
        return math.isfinite(value)
    if type(value) is list:
        return all(map(_json_exact, value))
    if type(value) is dict:
        return all(type(k) is str and _json_exact(v) for k, v in value.items())
    return False


def task_from_ground_truth(text: str) -> Task:
    """A scoring-only `Task` rebuilt from `ground_truth` output; TaskFormatError names what is wrong."""
    try:
        data = json.loads(text)
    except (TypeError, json.JSONDecodeError):
        raise TaskFormatError("ground_truth is not JSON; pass the string SPADE's exporter wrote") from None
    except RecursionError:
        raise TaskFormatError("ground_truth nests too deeply for JSON; pass the string SPADE's exporter "
                              "wrote") from None
    if not isinstance(data, dict) or data.get("spade_ground_truth") != VERSION:
        raise TaskFormatError(
            f"ground_truth is not SPADE ground truth version {VERSION}; re-export the data with `spade export`"
        )
    # Checked as a task file is (spade.taskio): every field's type, depth and text, one line naming what is wrong.
    from spade.taskio import task_from_dict

    unknown = sorted(set(data) - _FIELDS, key=str)
    if unknown:
        raise TaskFormatError(f"ground_truth: unknown field {unknown[0]!r:.60}; SPADE ground truth has the fields "
                              f"{', '.join(sorted(_FIELDS))}; re-export the data with `spade export`")
    for key in ("task_id", "entry_point", "test_cases"):
        if key not in data:
            raise TaskFormatError(f"ground_truth: missing field '{key}'; re-export the data with `spade export`")
    entry = data["entry_point"]
    if not isinstance(entry, str) or len(entry) > 200:
        raise TaskFormatError(f"ground_truth: field 'entry_point' = {entry!r:.60} must be the function's name as a "
                              "string; re-export the data with `spade export`")
    params = data.get("params", {})
    if not isinstance(params, dict):
        raise TaskFormatError(f"ground_truth: field 'params' = {params!r:.60} must be a JSON object")
    if "reference_cpu_s" in data:
        params = {**params, "reference_cpu_s": data["reference_cpu_s"]}
    kind = data.get("kind", PYTHON_FUNCTION)
    fields = {"task_id": data["task_id"], "description": "(from ground truth)", "entry_point": entry,
              "signature": f"def {entry}(*args):" if kind == PYTHON_FUNCTION else "", "kind": kind,
              "difficulty": data.get("difficulty", 0.5), "test_cases": data["test_cases"],
              "hidden_test_cases": data.get("hidden_test_cases", []), "params": params}
    if "reference_solution" in data:
        fields["reference_solution"] = data["reference_solution"]
    task = task_from_dict(fields, "ground_truth")
    return replace(task, description="")


_FIELDS = frozenset(("spade_ground_truth", "task_id", "entry_point", "difficulty", "test_cases", "hidden_test_cases",
                     "reference_cpu_s", "kind", "params", "reference_solution", "fn_name", "inputs", "outputs"))


def _case(case: TestCase) -> dict[str, Any]:
    return {"input": list(case.args), "expected": case.expected}


