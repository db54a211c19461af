"""Turn a model's answer into a proposal, or a rejection with a reason code: garbage is data, never an exception.

In: the answer text and the mode (spec: a JSON object; code_first: one documented function and example calls).
Out: a `Proposal` (description, signature, entry point, reference, argument lists, any expected values the model
stated) or a `Rejection` (reason code and one sentence). Nothing here runs the model's code: only `ast` reads it.
Bounded on the host: an answer over MAX_DRAFT_BYTES is refused unread, JSON nested deeper than MAX_JSON_DEPTH is
refused before `json.loads` would recurse into it, and Python is parsed within a `ParseBudget`.
"""

from __future__ import annotations

import ast
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from spade.pycode import ParseBudget, longest_parse, parse_untrusted
from spade.untrusted import MAX_DRAFT_BYTES, MAX_JSON_DEPTH, clean, json_depth, over

MAX_INPUTS = 12
_FENCED = re.compile(r"```[A-Za-z0-9_+.-]*[ \t]*\n(.*?)(?:```|\Z)", re.S)
_MISSING = object()  # no expected value was stated for this input
_KEPT = (ast.FunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign)


@dataclass(frozen=True, slots=True)
class Proposal:
    """A task as the model proposed it; `stated` maps an input's index to the return value the model claimed."""

    description: str
    signature: str
    entry_point: str
    reference: str
    inputs: tuple[tuple[Any, ...], ...]
    stated: dict[int, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Rejection:
    reason: str
    detail: str


class _Unusable(Exception):
    """A value in the answer that is not a plain literal (a call, a name, a set…)."""


def parse_answer(text: str, mode: str) -> Proposal | Rejection:
    """The proposal in `text` (answer of the `mode` prompt), or why there is none."""
    if over(text, MAX_DRAFT_BYTES):
        return Rejection("too_long", f"the answer is over {MAX_DRAFT_BYTES} bytes")
    text = clean(text)
    return parse_spec(text) if mode == "spec" else parse_code_first(text)


# -- spec mode -----------------------------------------------------------------------------------------------
def parse_spec(text: str) -> Proposal | Rejection:
    obj = _json_object(text)
    if obj is None:
        return Rejection("not_json", f"the answer holds no JSON object: {text.strip()[:60]!r}")
    reference = _first(obj, "reference", "reference_solution", "solution", "code")
    description = _first(obj, "description", "task", "problem")
    for name, value in (("description", description), ("reference", reference)):
        if value is None or (isinstance(value, str) and not value.strip()):
            return Rejection("missing_field", f"the JSON object has no '{name}'")
        if not isinstance(value, str):
            return Rejection("bad_field_type", f"'{name}' must be a string, got {type(value).__name__}")
    reference_text = _unfence(reference)
    module = _parse_module(reference_text)
    if isinstance(module, Rejection):
        return module
    signature = _first(obj, "signature")
    func = _target_function(module, signature if isinstance(signature, str) else None)
    if func is None:
        return Rejection("no_function", "the reference defines no top-level function matching the signature")
    header = _stated_header(signature, func)
    inputs, stated = _spec_tests(obj, header or func)
    if isinstance(inputs, Rejection):
        return inputs
    return _finish(description.strip(), header or func, _kept_source(reference_text, module), inputs, stated)


def _stated_header(signature: Any, func: ast.FunctionDef) -> ast.FunctionDef | None:
    """The signature the model stated, when it parses and names the reference's function with as many parameters:
    its annotations are what validation checks inputs and outputs against."""
    if not isinstance(signature, str):
        return None
    module = _try_parse(signature.strip().rstrip(":") + ":\n    pass\n")
    if module is None or len(module.body) != 1 or not isinstance(module.body[0], ast.FunctionDef):
        return None
    stated = module.body[0]
    same = stated.name == func.name and len(stated.args.args) == len(func.args.args)
    return stated if same else None


def _json_object(text: str) -> dict[str, Any] | None:
    for candidate in (text, _unfence(text), text[text.find("{"): text.rfind("}") + 1]):
        if json_depth(candidate) > MAX_JSON_DEPTH:  # json.loads recurses once per level: refused unread
            continue
        try:
            obj = json.loads(candidate)
        except (ValueError, RecursionError, MemoryError):
            continue
        if isinstance(obj, dict):
            return obj
    return None


def _first(obj: dict[str, Any], *keys: str) -> Any:
    return next((obj[k] for k in keys if k in obj), None)


def _spec_tests(obj: dict[str, Any], func: ast.FunctionDef) -> tuple[Any, dict[int, Any]]:
    """Argument lists (and stated values) from 'inputs' + 'expected', or from the task schema's 'test_cases'."""
    cases = _first(obj, "test_cases", "tests")
    raw_inputs = _first(obj, "inputs", "test_inputs")
    expected = _first(obj, "expected", "expected_outputs", "outputs")
    if isinstance(cases, list) and raw_inputs is None:
        raw_inputs = [c.get("input", c.get("inputs")) if isinstance(c, dict) else c for c in cases]
        expected = [c.get("expected", _MISSING) if isinstance(c, dict) else _MISSING for c in cases]
    if not isinstance(raw_inputs, list) or not raw_inputs:
        return Rejection("no_inputs", "the JSON object gives no list of test inputs"), {}
    arity = len(func.args.posonlyargs + func.args.args)
    calls: list[tuple[tuple[Any, ...], Any]] = []
    for i, raw in enumerate(raw_inputs[:MAX_INPUTS]):
        # A one-parameter function's inputs are often written bare (5, not [5]).
        args = raw if isinstance(raw, list) and (arity != 1 or _is_arg_list(raw, func)) else [raw]
        if raw is None or any(not _is_plain(a) for a in args):
            return Rejection("bad_inputs", f"test input {i} is not a list of JSON arguments: {raw!r:.60}"), {}
        value = expected[i] if isinstance(expected, list) and i < len(expected) else _MISSING
        calls.append((tuple(_to_json(a) for a in args), value if _is_plain(value) else _MISSING))
    return _dedupe(calls)


def _is_arg_list(raw: list[Any], func: ast.FunctionDef) -> bool:
    """For a one-parameter function: is `raw` its argument list, or its one (list) argument written bare?"""
    if len(raw) != 1:
        return False
    param = (func.args.posonlyargs + func.args.args)[0].annotation
    takes_list = param is not None and re.match(r"(list|List|tuple|Tuple|Sequence)\b", ast.unparse(param))
    # f(xs: list[int]): [1, 2, 3] is its argument and [[1, 2, 3]] its argument list; f(x: int): [5] is the list.
    return isinstance(raw[0], list) if takes_list else True


# -- code-first mode -----------------------------------------------------------------------------------------
def parse_code_first(text: str) -> Proposal | Rejection:
    blocks = _FENCED.findall(text) or [text]
    if not re.search(r"^[ \t]*def ", "\n".join(blocks), re.M):  # not \s*: it would rescan every blank line
        return Rejection("no_code", "the answer holds no function definition")
    module: ast.Module | Rejection = Rejection("no_code", "the answer holds no code")
    source = ""
    for block in blocks:
        block = _parseable_prefix(block)
        module = _parse_module(block)
        if not isinstance(module, Rejection) and _target_function(module, None) is not None:
            source = block
            break
    if isinstance(module, Rejection):
        return module
    func = _target_function(module, None)
    if func is None:
        return Rejection("no_function", "the code defines no top-level function")
    description = _description(func)
    if not description:
        return Rejection("no_docstring", f"function '{func.name}' has no docstring to take the description from")
    calls = _calls_in(module, func) + _doctest_calls(func) + _calls_in_prose(text, blocks, func)
    inputs, stated = _dedupe(calls)
    if not inputs:
        return Rejection("no_inputs", f"no example call of '{func.name}' with literal arguments was found")
    return _finish(description, func, _kept_source(source, module), inputs, stated)


def _parseable_prefix(block: str) -> str:
    """The block, or when it does not parse (an answer cut off at max_tokens, a broken last line), its longest
    parseable run of leading lines that still defines a function; the block itself when there is none."""
    found = longest_parse(block.split("\n"), 0, ParseBudget())
    if found is None or (found[0] != block and "def " not in found[0]):
        return block
    return found[0]


def _description(func: ast.FunctionDef) -> str:
    doc = ast.get_docstring(func) or ""
    # Doctest lines state outputs the model guessed; they become tests (checked by execution), not description.
    kept = doc.split(">>>", 1)[0].strip()
    return kept


def _calls_in(module: ast.Module, func: ast.FunctionDef) -> list[tuple[tuple[Any, ...], Any]]:
    """(args, stated value or _MISSING) of each top-level call of `func`: bare, printed, assigned or asserted."""
    found = []
    for node in module.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            continue
        for sub in ast.walk(node):
            if _is_call_of(sub, func.name):
                args = _literal_args(sub, func)
                if args is not None:
                    found.append((args, _asserted_value(node, sub)))
    return found


def _doctest_calls(func: ast.FunctionDef) -> list[tuple[tuple[Any, ...], Any]]:
    lines = (ast.get_docstring(func) or "").splitlines()
    found = []
    for i, line in enumerate(lines):
        stripped = line.strip()
        if not stripped.startswith(">>>"):
            continue
        call = _one_call(stripped[3:].strip(), func)
        if call is not None:
            after = lines[i + 1].strip() if i + 1 < len(lines) else ""
            found.append((call, _literal(after) if after and not after.startswith(">>>") else _MISSING))
    return found


def _calls_in_prose(text: str, blocks: list[str], func: ast.FunctionDef) -> list[tuple[tuple[Any, ...], Any]]:
    """Calls written outside the function's block, one per line (e.g. `f(3) == 9` or `print(f(3))`)."""
    found = []
    for line in "\n".join(b for b in blocks if func.name + "(" in b).splitlines() + text.splitlines():
        stripped = line.strip().removeprefix(">>>").strip().strip("`").rstrip(",.;")
        if not stripped or stripped.startswith(("def ", "return", "#")) or func.name + "(" not in stripped:
            continue
        if not stripped.startswith(("print(", "assert ")):
            stripped = stripped[stripped.find(func.name + "("):]  # prose before the call ("Also f(3) == 9")
        module = _try_parse(stripped.removeprefix("assert ").split(" # ", 1)[0])
        if module is None or len(module.body) != 1:
            continue
        for sub in ast.walk(module.body[0]):
            if _is_call_of(sub, func.name):
                args = _literal_args(sub, func)
                if args is not None:
                    found.append((args, _asserted_value(module.body[0], sub)))
    return found


def _one_call(source: str, func: ast.FunctionDef) -> tuple[Any, ...] | None:
    module = _try_parse(source)
    if module is None or len(module.body) != 1 or not isinstance(module.body[0], ast.Expr):
        return None
    node = module.body[0].value
    return _literal_args(node, func) if _is_call_of(node, func.name) else None


def _is_call_of(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name


def _literal_args(call: ast.Call, func: ast.FunctionDef) -> tuple[Any, ...] | None:
    """Positional arguments as JSON values (keywords placed by parameter name), or None when not all literals."""
    params = [a.arg for a in func.args.posonlyargs + func.args.args]
    try:
        args = [_to_json(ast.literal_eval(a)) for a in call.args]
        by_name = {k.arg: _to_json(ast.literal_eval(k.value)) for k in call.keywords if k.arg}
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError, _Unusable):
        return None
    if len(by_name) != len(call.keywords):
        return None
    for name in params[len(args):]:
        if name not in by_name:
            break
        args.append(by_name.pop(name))
    return None if by_name else tuple(args)


def _asserted_value(statement: ast.stmt, call: ast.Call) -> Any:
    """The value the model claimed for `call`: `assert f(x) == v`, `f(x) == v` or `f(x)  # -> v` forms."""
    test = statement.test if isinstance(statement, ast.Assert) else getattr(statement, "value", None)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
        other = test.comparators[0] if test.left is call else test.left if test.comparators[0] is call else None
        if other is not None:
            try:
                return _to_json(ast.literal_eval(other))
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError, _Unusable):
                return _MISSING
    return _MISSING


def _literal(source: str) -> Any:
    try:
        return _to_json(ast.literal_eval(source))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError, _Unusable):
        return _MISSING


def _dedupe(calls: list[tuple[tuple[Any, ...], Any]]) -> tuple[list[tuple[Any, ...]], dict[int, Any]]:
    inputs: list[tuple[Any, ...]] = []
    stated: dict[int, Any] = {}
    seen: dict[str, int] = {}
    for args, value in calls:
        key = json.dumps(args, sort_keys=True)
        if key not in seen:
            if len(inputs) == MAX_INPUTS:
                continue
            seen[key] = len(inputs)
            inputs.append(args)
        if value is not _MISSING and seen[key] not in stated:
            stated[seen[key]] = value
    return inputs, stated


# -- shared --------------------------------------------------------------------------------------------------
def _finish(description: str, func: ast.FunctionDef, reference: str, inputs: list[tuple[Any, ...]],
            stated: dict[int, Any]) -> Proposal:
    header = ast.unparse(ast.FunctionDef(
        name=func.name, args=func.args, body=[ast.Pass()], decorator_list=[], returns=func.returns,
        type_comment=None, type_params=[], lineno=1, col_offset=0,
    )).split("\n", 1)[0]
    return Proposal(description=clean(description.strip()), signature=header, entry_point=func.name,
                    reference=clean(reference),  # JSON's escapes can spell lone surrogates
                    inputs=tuple(inputs), stated=stated)


def _parse_module(source: str) -> ast.Module | Rejection:
    if not source.strip():
        return Rejection("no_code", "the answer holds no code")
    try:
        return parse_untrusted(source)
    except SyntaxError as exc:
        return Rejection("syntax_error", f"the code does not parse: {exc.msg}")


def _try_parse(source: str) -> ast.Module | None:
    try:
        return parse_untrusted(source)
    except SyntaxError:
        return None


def _target_function(module: ast.Module, signature: str | None) -> ast.FunctionDef | None:
    funcs = [n for n in module.body if isinstance(n, ast.FunctionDef)]
    if signature:
        name = re.match(r"\s*def\s+([A-Za-z_]\w*)", signature)
        chosen = [f for f in funcs if name and f.name == name.group(1)]
        return chosen[0] if chosen else None
    # The task is the function no other top-level function calls (helpers are called by it).
    called = {n.func.id for f in funcs for n in ast.walk(f) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
              and n.func.id != f.name}
    roots = [f for f in funcs if f.name not in called]
    return (roots or funcs or [None])[0]


def _kept_source(source: str, module: ast.Module) -> str:
    """Definitions, imports and constants of the block; example calls, prints and asserts are dropped."""
    pieces = []
    for node in module.body:
        if isinstance(node, _KEPT):
            segment = ast.get_source_segment(source, node, padded=False)
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.decorator_list:
                segment = None  # decorators sit above the segment; unparse keeps them
            pieces.append(segment if segment is not None else ast.unparse(node))
    return "\n\n".join(pieces).strip("\n") + "\n"


def _unfence(text: str) -> str:
    match = _FENCED.search(text)
    return match.group(1) if match else text


def _is_plain(value: Any) -> bool:
    try:
        _to_json(value)
    except _Unusable:
        return False
    return True


def _to_json(value: Any, depth: int = 0) -> Any:
    """Tuples become lists (inputs are JSON); sets, bytes, complex and non-finite floats are unusable."""
    if depth > 50:
        raise _Unusable("nested too deeply")
    t = type(value)
    if value is None or t in (bool, int, str):
        return value
    if t is float:
        if not math.isfinite(value):
            raise _Unusable("non-finite float")
        return value
    if t in (list, tuple):
        return [_to_json(v, depth + 1) for v in value]
    if t is dict and all(type(k) is str for k in value):
        return {k: _to_json(v, depth + 1) for k, v in value.items()}
    raise _Unusable(f"{t.__name__} is not a JSON value")
