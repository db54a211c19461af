"""Read and write tasks in the write-up's JSON schema (DESIGN.md §2), JSON (one task or a list) or JSONL.

In: a path or a dict. Out: `Task` records. Errors name the file, the line, the field and the fix.
Optional fields we add: entry_point, reference_solution, hidden_test_cases, family, params, provenance.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

from spade.errors import TaskFormatError
from spade.records import Task, TestCase

_REQUIRED = ("task_id", "description", "signature", "test_cases")
_OPTIONAL = (
    "difficulty", "tags", "entry_point", "reference_solution", "hidden_test_cases", "family", "params", "provenance",
)


def load_tasks(path: str | Path) -> list[Task]:
    """Every task in a .json or .jsonl file. Blank lines in JSONL are skipped."""
    p = Path(path)
    if not p.is_file():
        raise TaskFormatError(f"task file {p} does not exist")
    text = p.read_text(encoding="utf-8")
    if p.suffix == ".jsonl":
        records = []
        for lineno, line in enumerate(text.splitlines(), 1):
            if line.strip():
                records.append((f"{p}:{lineno}", _parse_json(line, f"{p}:{lineno}")))
    else:
        data = _parse_json(text, str(p))
        items = data if isinstance(data, list) else [data]
        records = [(f"{p}[{i}]" if isinstance(data, list) else str(p), d) for i, d in enumerate(items)]
    if not records:
        raise TaskFormatError(f"task file {p} holds no tasks")
    return [task_from_dict(d, where) for where, d in records]


def _parse_json(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise TaskFormatError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from None


def task_from_dict(d: Any, where: str = "task") -> Task:
    """Build a Task from the write-up schema; raises TaskFormatError naming the field and the fix."""
    if not isinstance(d, dict):
        raise TaskFormatError(f"{where}: a task must be a JSON object, got {type(d).__name__}")
    missing = [k for k in _REQUIRED if k not in d]
    if missing:
        raise TaskFormatError(f"{where}: missing field '{missing[0]}'; required fields are {', '.join(_REQUIRED)}")
    unknown = sorted(set(d) - set(_REQUIRED) - set(_OPTIONAL))
    if unknown:
        raise TaskFormatError(f"{where}: unknown field '{unknown[0]}'; allowed fields are {', '.join(_REQUIRED + _OPTIONAL)}")
    for key in ("task_id", "description", "signature"):
        if not isinstance(d[key], str) or not d[key].strip():
            raise TaskFormatError(f"{where}: field '{key}' must be a non-empty string, got {d[key]!r}")
    difficulty = d.get("difficulty", 0.5)
    if isinstance(difficulty, bool) or not isinstance(difficulty, (int, float)) or not 0 <= difficulty <= 1:
        raise TaskFormatError(f"{where}: field 'difficulty' = {difficulty!r} must be a number in [0, 1]")
    tags = d.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise TaskFormatError(f"{where}: field 'tags' must be a list of strings, got {tags!r}")
    entry_point = d.get("entry_point") or entry_point_of(d["signature"], where)
    reference = d.get("reference_solution")
    if reference is not None and not isinstance(reference, str):
        raise TaskFormatError(f"{where}: field 'reference_solution' must be a string of Python code")
    for key in ("params", "provenance"):
        if not isinstance(d.get(key, {}), dict):
            raise TaskFormatError(f"{where}: field '{key}' must be a JSON object")
    return Task(
        task_id=d["task_id"],
        description=d["description"],
        signature=d["signature"],
        entry_point=entry_point,
        difficulty=float(difficulty),
        tags=tuple(tags),
        test_cases=_cases(d["test_cases"], f"{where}: test_cases"),
        hidden_test_cases=_cases(d.get("hidden_test_cases", []), f"{where}: hidden_test_cases"),
        reference_solution=reference,
        family=d.get("family"),
        params=dict(d.get("params", {})),
        provenance=dict(d.get("provenance", {})),
    )


def _cases(items: Any, where: str) -> tuple[TestCase, ...]:
    if not isinstance(items, list):
        raise TaskFormatError(f"{where} must be a list of {{'input': [...], 'expected': ...}} objects")
    cases = []
    for i, case in enumerate(items):
        if not isinstance(case, dict) or "input" not in case or "expected" not in case:
            raise TaskFormatError(f"{where}[{i}] must be an object with 'input' (argument list) and 'expected'")
        if not isinstance(case["input"], list):
            raise TaskFormatError(
                f"{where}[{i}].input = {case['input']!r} must be the list of positional arguments, e.g. [[1, 2], 3]"
            )
        cases.append(TestCase(args=tuple(case["input"]), expected=case["expected"]))
    return tuple(cases)


def entry_point_of(signature: str, where: str = "task") -> str:
    """The function name a `def name(...) -> T:` signature declares."""
    source = signature.strip()
    if not source.endswith(":"):
        source += ":"
    try:
        tree = ast.parse(source + "\n    pass\n")
    except SyntaxError:
        raise TaskFormatError(f"{where}: signature {signature!r} does not parse; write e.g. 'def f(x: int) -> int:'") from None
    funcs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    if len(funcs) != 1:
        raise TaskFormatError(f"{where}: signature {signature!r} must declare exactly one function")
    return funcs[0].name


def task_to_dict(task: Task) -> dict[str, Any]:
    """The schema form of a task (round-trips through task_from_dict)."""
    d: dict[str, Any] = {
        "task_id": task.task_id,
        "description": task.description,
        "signature": task.signature,
        "entry_point": task.entry_point,
        "difficulty": task.difficulty,
        "tags": list(task.tags),
        "test_cases": [{"input": list(c.args), "expected": c.expected} for c in task.test_cases],
        "hidden_test_cases": [{"input": list(c.args), "expected": c.expected} for c in task.hidden_test_cases],
    }
    for key in ("reference_solution", "family"):
        if getattr(task, key) is not None:
            d[key] = getattr(task, key)
    if task.params:
        d["params"] = task.params
    if task.provenance:
        d["provenance"] = task.provenance
    return d
