"""Read and write tasks in SPADE's JSON task schema (docs/method.md#task-schema), JSON (one task or a list) or
JSONL.

In: a path or a dict. Out: `Task` records. Errors are one line naming the file, the line, the field, the value
(shortened) and the fix. Optional fields we add: entry_point, reference_solution, hidden_test_cases, family,
params, provenance, kind (a registered task kind, spade.kinds; python_function when absent). Test values are bounded in depth, items and size, so any task that loads can be sent to the
sandbox and compared.
"""

from __future__ import annotations

import ast
import keyword
import math
from pathlib import Path
from typing import Any

from spade.errors import TaskFormatError
from spade.jsonfile import DEEP_MARK, MAX_INT_DIGITS, BigInt, digits, parse, read_text, short, too_long
from spade.pycode import parse_untrusted
from spade.records import PYTHON_FUNCTION, Task, TestCase
from spade.untrusted import MAX_VALUE_DEPTH, clean, clean_value, is_text

_REQUIRED = ("task_id", "description", "signature", "test_cases")
_OPTIONAL = (
    "difficulty", "tags", "entry_point", "reference_solution", "hidden_test_cases", "family", "params", "provenance",
    "kind",
)
# The sandbox codec's depth (spade.untrusted.MAX_VALUE_DEPTH, for each argument and each expected value) and below its
# size limits (200k items, 4M encoded chars), so a value that loads also crosses.
MAX_VALUE_ITEMS = 100_000
MAX_VALUE_CHARS = 1_000_000
MAX_REFERENCE_CPU_S = 600.0  # executor.timeout's own ceiling: a reference slower than that cannot set a limit


def load_tasks(path: str | Path) -> list[Task]:
    """Every task in a .json or .jsonl file. Blank lines in JSONL are skipped."""
    p = Path(path)
    if not p.is_file():
        raise TaskFormatError(f"task file {p} does not exist")
    text = read_text(p, "task file")
    if p.suffix == ".jsonl":
        records = []
        for lineno, line in enumerate(text.splitlines(), 1):
            if line.strip():
                records.append((f"{p}:{lineno}", parse(line, f"{p}:{lineno}")))
    else:
        data = parse(text, str(p))
        items = data if isinstance(data, list) else [data]
        records = [(f"{p}[{i}]" if isinstance(data, list) else str(p), d) for i, d in enumerate(items)]
    if not records:
        raise TaskFormatError(f"task file {p} holds no tasks")
    tasks: list = []
    seen: dict[str, str] = {}
    for where, d in records:
        task = task_from_dict(d, where)
        if task.task_id in seen:
            raise TaskFormatError(f"{where}: task_id {short(task.task_id)} is already used at {seen[task.task_id]}; "
                                  "give every task in a file its own task_id")
        seen[task.task_id] = where
        tasks.append(task)
    return tasks


def task_from_dict(d: Any, where: str = "task") -> Task:
    """Build a Task from the task schema; raises TaskFormatError naming the field and the fix."""
    if not isinstance(d, dict):
        raise TaskFormatError(f"{where}: a task must be a JSON object, got {type(d).__name__} {short(d)}")
    missing = [k for k in _REQUIRED if k not in d]
    if missing:
        raise TaskFormatError(f"{where}: missing field '{missing[0]}'; required fields are {', '.join(_REQUIRED)}")
    unknown = sorted((k for k in d if k not in _REQUIRED and k not in _OPTIONAL), key=str)
    if unknown:
        raise TaskFormatError(f"{where}: unknown field {short(unknown[0])}; allowed fields are "
                              f"{', '.join(_REQUIRED + _OPTIONAL)}")
    kind = _kind(d.get("kind", PYTHON_FUNCTION), where)
    for key in ("task_id", "description", "signature"):
        if not isinstance(d[key], str) or not (d[key].strip() or key == "signature" and kind != PYTHON_FUNCTION):
            raise TaskFormatError(f"{where}: field '{key}' = {short(d[key])} must be a non-empty string")
    difficulty = d.get("difficulty", 0.5)
    if isinstance(difficulty, bool) or not isinstance(difficulty, (int, float)) or not 0 <= difficulty <= 1:
        raise TaskFormatError(f"{where}: field 'difficulty' = {short(difficulty)} must be a number in [0, 1]")
    tags = d.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise TaskFormatError(f"{where}: field 'tags' = {short(tags)} must be a list of strings, e.g. [\"array\"]")
    entry_point = _entry_point(d, where) if kind == PYTHON_FUNCTION else _free_entry_point(d, where)
    reference = d.get("reference_solution")
    if reference is not None and not isinstance(reference, str):
        raise TaskFormatError(f"{where}: field 'reference_solution' = {short(reference)} must be a string of "
                              "Python code")
    family = d.get("family")
    if family is not None and (not isinstance(family, str) or not family.strip()):
        raise TaskFormatError(f"{where}: field 'family' = {short(family)} must be a non-empty string or absent")
    for key in ("params", "provenance"):
        if not isinstance(d.get(key, {}), dict):
            raise TaskFormatError(f"{where}: field '{key}' = {short(d[key])} must be a JSON object")
        check_value(d.get(key, {}), where, key)
    _check_params(d.get("params", {}), d.get("provenance", {}), where)
    test_cases = _cases(d["test_cases"], where, "test_cases")
    if not test_cases:
        raise TaskFormatError(f"{where}: field 'test_cases' = [] is empty; give at least one shown test, e.g. "
                              "[{\"input\": [1, 2], \"expected\": 3}] (a task without tests cannot be failed)")
    # Text fields are cleaned of lone surrogates (JSON's \\ud800 escapes decode to them): a task loaded is text every
    # store, response and export can encode. Test values are refused instead (check_value): cleaning one would change it.
    return Task(
        task_id=clean(d["task_id"]),
        description=clean(d["description"]),
        signature=clean(d["signature"]),
        entry_point=entry_point,
        difficulty=float(difficulty),
        tags=tuple(map(clean, tags)),
        test_cases=test_cases,
        hidden_test_cases=_cases(d.get("hidden_test_cases", []), where, "hidden_test_cases"),
        reference_solution=None if reference is None else clean(reference),
        family=None if family is None else clean(family),
        params=clean_value({k: v for k, v in d.get("params", {}).items() if k != "reference_cpu_s"}),
        provenance=clean_value(dict(d.get("provenance", {}))),
        kind=kind,
        reference_cpu_s=float(d["params"]["reference_cpu_s"]) if "reference_cpu_s" in d.get("params", {}) else None,
    )


def _kind(kind: Any, where: str) -> str:
    """A registered task kind (spade.kinds); python_function when absent."""
    if kind == PYTHON_FUNCTION:
        return kind
    from spade.registry import KINDS  # loads the kinds (spade.kinds) on first use

    if not isinstance(kind, str) or kind not in KINDS:
        raise TaskFormatError(f"{where}: field 'kind' = {short(kind)} is not a task kind; known kinds are "
                              f"{', '.join(KINDS.names())} (leave it out for {PYTHON_FUNCTION})")
    return kind


def _free_entry_point(d: dict, where: str) -> str:
    """Another kind's entry point: the short text it gives, else the function a `def` signature declares, else ''
    (a kind whose answers are not functions); its kind's validator judges it."""
    given = d.get("entry_point", "")
    if not isinstance(given, str) or len(given) > 200:
        raise TaskFormatError(f"{where}: field 'entry_point' = {short(given)} must be a short string or absent")
    if given or not d["signature"].strip():
        return given
    try:
        return entry_point_of(d["signature"], where)
    except TaskFormatError:
        return ""


def _entry_point(d: dict, where: str) -> str:
    given = d.get("entry_point")
    if given is None or given == "":
        return entry_point_of(d["signature"], where)
    if not isinstance(given, str) or not given.isidentifier() or keyword.iskeyword(given):
        raise TaskFormatError(f"{where}: field 'entry_point' = {short(given)} must be the function's name as a "
                              "string, e.g. \"two_sum\" (or leave it out to take it from the signature)")
    return given


def _check_params(params: dict, provenance: dict, where: str) -> None:
    """The optional keys other stages read as numbers or code: their types are checked here, once."""
    if "reference_cpu_s" in params:
        value = params["reference_cpu_s"]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or not 0 <= value <= MAX_REFERENCE_CPU_S:
            raise TaskFormatError(
                f"{where}: field 'params.reference_cpu_s' = {short(value)} must be the reference's CPU seconds per "
                f"test, a number in [0, {MAX_REFERENCE_CPU_S:g}]; remove it to use executor.time_floor_s"
            )
    if "prompt" in provenance and not isinstance(provenance["prompt"], str):
        raise TaskFormatError(f"{where}: field 'provenance.prompt' = {short(provenance['prompt'])} must be the "
                              "original prompt as a string of Python code, or absent")


def _cases(items: Any, where: str, field: str) -> tuple[TestCase, ...]:
    if not isinstance(items, list):
        raise TaskFormatError(f"{where}: field '{field}' = {short(items)} must be a list of "
                              "{\"input\": [...], \"expected\": ...} objects")
    cases = []
    for i, case in enumerate(items):
        if not isinstance(case, dict) or "input" not in case or "expected" not in case:
            raise TaskFormatError(f"{where}: field '{field}[{i}]' = {short(case)} must be an object with 'input' "
                                  "(argument list) and 'expected'")
        if not isinstance(case["input"], list):
            raise TaskFormatError(f"{where}: field '{field}[{i}].input' = {short(case['input'])} must be the list "
                                  "of positional arguments, e.g. [[1, 2], 3]")
        check_value(case["input"], where, f"{field}[{i}].input", arguments=True)
        check_value(case["expected"], where, f"{field}[{i}].expected")
        cases.append(TestCase(args=tuple(case["input"]), expected=case["expected"]))
    return tuple(cases)


def check_value(value: Any, where: str, field: str, arguments: bool = False) -> None:
    """Refuse a value too deep, too large or holding an integer too long to print, naming it and the fix.
    Iterative (the value may be nested deeper than Python recurses), and one type test per item: a task file
    holds millions of them. `arguments`: the value is a list of arguments, each of which may nest MAX_VALUE_DEPTH."""
    levels = MAX_VALUE_DEPTH + 1 if arguments else MAX_VALUE_DEPTH
    stack, items, chars = [(value, 0)], 1, 0
    if type(value) not in _NODES:
        stack = []
        _check_scalar(value, where, field)
        chars = len(value) if type(value) is str else 8
    while stack:
        node, depth = stack.pop()
        if depth >= levels:
            what = "an argument in it" if arguments else "it"
            raise TaskFormatError(f"{where}: field '{field}' = {short(value)}: {what} is nested more than "
                                  f"{MAX_VALUE_DEPTH} levels deep; test values nest at most {MAX_VALUE_DEPTH} levels")
        children = [*node.keys(), *node.values()] if type(node) is dict else node
        items += len(children)
        for child in children:
            kind = type(child)
            if kind is str:
                chars += len(child)
                if len(child) == len(DEEP_MARK) and child == DEEP_MARK or not child.isascii():
                    _check_scalar(child, where, field)
            elif kind in _NODES:
                stack.append((child, depth + 1))
            else:
                chars += 8
                if kind is BigInt or kind is int and child.bit_length() > 14_000:  # a JSON parse makes BigInts
                    _check_scalar(child, where, field)
        if items > MAX_VALUE_ITEMS or chars > MAX_VALUE_CHARS:
            raise TaskFormatError(f"{where}: field '{field}' = {short(value)} is too large (over {MAX_VALUE_ITEMS:,} "
                                  f"items or {MAX_VALUE_CHARS:,} characters); split it into smaller test values")


_NODES = frozenset((list, tuple, dict, set, frozenset))


def _check_scalar(v: Any, where: str, field: str) -> None:
    if too_long(v):
        raise TaskFormatError(f"{where}: field '{field}' holds an integer of {digits(v)} digits ({short(v)}); at "
                              f"most {MAX_INT_DIGITS} digits fit Python's int/str limit: use a smaller number")
    if type(v) is str and not is_text(v):
        raise TaskFormatError(f"{where}: field '{field}' holds a lone surrogate ({short(v)}: an escape such as \\ud800 "
                              "without its pair), which is not UTF-8 text; write the character itself or a valid pair")
    if type(v) is str and v == DEEP_MARK:
        raise TaskFormatError(f"{where}: field '{field}' is nested deeper than the parser allows; test values nest "
                              f"at most {MAX_VALUE_DEPTH} levels")


def entry_point_of(signature: str, where: str = "task") -> str:
    """The function name a `def name(...) -> T:` signature declares."""
    source = signature.strip()
    if not source.endswith(":"):
        source += ":"
    try:
        tree = parse_untrusted(source + "\n    pass\n")
    except SyntaxError:
        raise TaskFormatError(f"{where}: signature {short(signature)} does not parse; write e.g. 'def f(x: int) -> int:'") from None
    funcs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    if len(funcs) != 1:
        raise TaskFormatError(f"{where}: signature {short(signature)} must declare exactly one function")
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
    params = task.params if task.reference_cpu_s is None else {**task.params, "reference_cpu_s": task.reference_cpu_s}
    if params:  # the file format keeps the reference's CPU time where earlier versions wrote it
        d["params"] = params
    if task.provenance:
        d["provenance"] = task.provenance
    if task.kind != PYTHON_FUNCTION:
        d["kind"] = task.kind
    return d
