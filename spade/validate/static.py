"""Static validation: checks that need no execution.

In: a Task (from a file) or a TaskDraft (from a family). Out: a list of `Problem`s, empty when the task is
well formed: fields present and typed, the signature parses and names the entry point, every test's
arity and JSON types fit the annotations, stated expected values fit the return annotation.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import Any

from spade.jsonfile import short
from spade.pycode import parse_untrusted
from spade.records import Task, TaskDraft
from spade.validate.outcome import Problem
from spade.validate.types import Ann, UnsupportedAnnotation, fits, is_json, parse_annotation

MISSING = object()


def check_task(task: Task) -> list[Problem]:
    return static_problems(
        _fields(task), task.signature, task.entry_point, [t.args for t in task.all_tests],
        [t.expected for t in task.all_tests], task.reference_solution,
    )


def check_draft(draft: TaskDraft) -> list[Problem]:
    return static_problems(_fields(draft), draft.signature, draft.entry_point, list(draft.all_inputs),
                           None, draft.reference_solution)


def _fields(task: Task | TaskDraft) -> dict[str, Any]:
    return {k: getattr(task, k, MISSING) for k in ("task_id", "description", "signature", "entry_point", "difficulty")}


def static_problems(
    fields: dict[str, Any], signature: Any, entry_point: Any, inputs: Sequence[Sequence[Any]],
    expected: Sequence[Any] | None, reference: str | None,
) -> list[Problem]:
    problems = _field_problems(fields)
    if problems:
        return problems
    if not inputs:
        return [Problem("no_tests", "the task has no test cases; give at least one input")]
    parsed = parse_signature(signature)
    if isinstance(parsed, Problem):
        return [parsed]
    func = parsed
    if func.name != entry_point:
        return [Problem("entry_point_mismatch", f"signature defines '{func.name}' but entry_point is '{entry_point}'")]
    params, ret, problem = _annotations(func)
    if problem:
        return [problem]
    problems += _input_problems(func, params, inputs)
    if expected is not None:
        problems += _expected_problems(ret, expected)
    if reference is not None:
        problems += reference_problems(reference, entry_point)
    return problems


def _field_problems(fields: dict[str, Any]) -> list[Problem]:
    out = []
    for key in ("task_id", "description", "signature", "entry_point"):
        value = fields.get(key, MISSING)
        if value is MISSING or value is None or (isinstance(value, str) and not value.strip()):
            out.append(Problem("missing_field", f"field '{key}' is missing or empty"))
        elif not isinstance(value, str):
            out.append(Problem("bad_field_type", f"field '{key}' must be a string, got {type(value).__name__}"))
    d = fields.get("difficulty", MISSING)
    if d is MISSING or type(d) not in (int, float) or not 0.0 <= d <= 1.0:
        out.append(Problem("bad_difficulty", f"field 'difficulty' must be a number in [0, 1], got {d!r}"))
    return out


def parse_signature(signature: str) -> ast.FunctionDef | Problem:
    """The signature's FunctionDef (given a placeholder body), or a bad_signature Problem."""
    text = signature.strip()
    if not text.endswith(":"):
        text += ":"
    try:
        module = parse_untrusted(text + "\n    pass\n")
    except SyntaxError as exc:
        return Problem("bad_signature", f"signature {short(signature)} does not parse: {exc.msg}")
    if len(module.body) != 1 or not isinstance(module.body[0], ast.FunctionDef):
        return Problem("bad_signature", f"signature {signature!r} must be exactly one 'def name(...) -> type:' line")
    return module.body[0]


def _annotations(func: ast.FunctionDef) -> tuple[list[Ann], Ann, Problem | None]:
    a = func.args
    if any(d is None for d in a.kw_defaults):
        return [], Ann("Any"), Problem("bad_signature", f"'{func.name}' has keyword-only parameters without defaults")
    try:
        params = [parse_annotation(p.annotation) for p in a.posonlyargs + a.args]
        ret = parse_annotation(func.returns)
    except UnsupportedAnnotation as exc:
        return [], Ann("Any"), Problem("unsupported_annotation", f"signature of '{func.name}': {exc}")
    return params, ret, None


def _input_problems(func: ast.FunctionDef, params: list[Ann], inputs: Sequence[Sequence[Any]]) -> list[Problem]:
    a = func.args
    most = None if a.vararg else len(params)
    least = len(params) - len(a.defaults)
    for i, args in enumerate(inputs):
        n = len(args)
        if n < least or (most is not None and n > most):
            want = f"{least}" if least == most else f"{least} to {most if most is not None else 'any'}"
            return [Problem("arity_mismatch", f"test {i} passes {n} arguments but '{func.name}' takes {want}")]
        for j, (value, ann) in enumerate(zip(args, params)):
            if not is_json(value):
                return [Problem("non_json_input", f"test {i} argument {j} is not a plain JSON value: {value!r:.80}")]
            if not fits(value, ann):
                name = (a.posonlyargs + a.args)[j].arg
                return [Problem("type_mismatch", f"test {i} argument '{name}' = {value!r:.80} does not fit its annotation")]
    return []


def _expected_problems(ret: Ann, expected: Sequence[Any]) -> list[Problem]:
    for i, value in enumerate(expected):
        if not is_json(value):
            return [Problem("non_json_expected", f"test {i} expected value is not a plain JSON value: {value!r:.80}")]
        if not fits(value, ret):
            return [Problem("return_type_mismatch", f"test {i} expected {value!r:.80} does not fit the return annotation")]
    return []


def reference_problems(reference: str, entry_point: str) -> list[Problem]:
    try:
        module = parse_untrusted(reference)
    except SyntaxError as exc:
        line = f" (line {exc.lineno})" if exc.lineno else ""
        return [Problem("reference_syntax", f"reference_solution does not parse: {exc.msg}{line}")]
    names = {n.name for n in module.body if isinstance(n, ast.FunctionDef)}
    if entry_point not in names:
        return [Problem("reference_missing_entry_point", f"reference_solution defines no top-level '{entry_point}'")]
    return []
