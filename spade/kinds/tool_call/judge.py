"""The tool-call judge: runs inside the sandbox as a program job, next to simtools.py (placed in its working
directory). Never run on the host for an answer; the host imports it only for `parse_plan` on its own references.

stdin: {"tools": [offered names], "plans": [answer text, ...], "states": [state per test], "full": [plan indices]}.
stdout: {"plans": [per plan: {"format": why} when the text is not a plan, else {"digests": [sha256 per test]} and,
for plans in `full`, "outcomes": [per test: {"answer": last call's result, "state": final state} or
{"error": "code: detail"}] and, when the plan has references, "hard_coded_digests" (the plan with each reference
replaced by its value on test 0, run on every test)]}.
A plan is checked before it runs (at most MAX_CALLS calls, offered tool names, references to earlier calls, each
call's arguments against its tool's schema, with references standing for any value) and again per test once
references are resolved. Every bound is a verdict: oversized, over-deep or non-finite answers, unknown or
dunder names (names are dictionary keys, never attributes), references forward or out of range.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
import sys
from typing import Any

# Standard library only: the sandbox runs this file on its own, where spade is not importable (so the bounds below
# repeat spade.untrusted's rather than import them).
MAX_ANSWER_CHARS = 20_000
MAX_CALLS = 8
MAX_DEPTH = 12
MAX_STRING = 2_000
MAX_NUMBER = 1e12
REFERENCE = re.compile(r"\$(\d{1,2})((?:\.[A-Za-z0-9_]{1,64}){0,8})")
_SCALARS = {"string": str, "boolean": bool, "object": dict, "array": list}


class PlanError(Exception):
    """The plan is not acceptable (its code and detail go into the verdict)."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(f"{code}: {detail}")


def parse_plan(text: Any) -> list[tuple[str, dict]]:
    """The (name, arguments) calls in an answer; PlanError('format', ...) when the text is not a plan."""
    if not isinstance(text, str) or not text.strip():
        raise PlanError("format", "empty answer")
    data = _load(text, "answer")
    if isinstance(data, dict):
        data = data.get("tool_calls", [data])
    if not isinstance(data, list) or not data:
        raise PlanError("format", "give a JSON list of calls, e.g. [{\"name\": \"kv_get\", \"arguments\": {...}}]")
    if len(data) > MAX_CALLS:
        raise PlanError("too_many_calls", f"{len(data)} calls; a plan has at most {MAX_CALLS}")
    return [_call(item, i) for i, item in enumerate(data)]


def _call(item: Any, i: int) -> tuple[str, dict]:
    if not isinstance(item, dict):
        raise PlanError("format", f"call {i} is not an object")
    body = item["function"] if isinstance(item.get("function"), dict) else item  # the OpenAI tool_calls shape
    name, arguments = body.get("name"), body.get("arguments", body.get("parameters", {}))  # some models say parameters
    if not isinstance(name, str) or not name:
        raise PlanError("format", f"call {i} has no name")
    if isinstance(arguments, str):  # OpenAI sends the arguments as a JSON string
        arguments = _load(arguments, f"call {i}'s arguments")
    if not isinstance(arguments, dict):
        raise PlanError("format", f"call {i}'s arguments are not an object")
    return name, arguments


def _load(text: str, what: str) -> Any:
    if len(text) > MAX_ANSWER_CHARS:
        raise PlanError("format", f"{what} has {len(text)} characters; at most {MAX_ANSWER_CHARS}")
    if _depth(text) > MAX_DEPTH:
        raise PlanError("format", f"{what} nests deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except (ValueError, RecursionError) as exc:
        calls = _objects_in_a_row(text)
        if calls is None:
            raise PlanError("format", f"{what} is not JSON ({str(exc)[:80]})") from None
        return calls


def _objects_in_a_row(text: str) -> list[dict] | None:
    """Objects written one after another (one call a line, or separated by commas) without the enclosing list,
    as small models often write them; None unless the whole text is two or more such objects."""
    found, i = [], 0
    try:
        while True:
            while i < len(text) and text[i] in " \t\r\n,":
                i += 1
            if i == len(text):
                break
            value, i = _DECODER.raw_decode(text, i)
            if not isinstance(value, dict) or len(found) > MAX_CALLS:
                return None
            found.append(value)
    except (ValueError, RecursionError):
        return None
    return found if len(found) > 1 else None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)


def _depth(text: str) -> int:
    """Bracket nesting outside strings, in one pass (json.loads would recurse first)."""
    deepest = depth = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def references(value: Any) -> list[tuple[int, list[str]]]:
    """Every "$N.path" reference in an argument value: (N, path parts)."""
    if isinstance(value, str):
        m = REFERENCE.fullmatch(value)
        return [(int(m.group(1)), [p for p in m.group(2).split(".") if p])] if m else []
    if isinstance(value, dict):
        return [r for v in value.values() for r in references(v)]
    if isinstance(value, list):
        return [r for v in value for r in references(v)]
    return []


def check_schema(value: Any, schema: dict, where: str, refs_free: bool) -> None:
    """PlanError('schema', ...) when `value` breaks the supported subset of JSON Schema: type, properties,
    required, additionalProperties false, enum, minimum/maximum, minLength/maxLength, pattern, items, maxItems.
    `refs_free`: a "$N..." reference is accepted for any value (it is checked again once resolved)."""
    if refs_free and isinstance(value, str) and REFERENCE.fullmatch(value):
        return
    kind = schema.get("type")
    if kind == "integer":
        ok = type(value) is int
    elif kind == "number":
        ok = type(value) in (int, float)
    else:
        ok = kind is None or isinstance(value, _SCALARS[kind]) and not (kind != "boolean" and type(value) is bool)
    if not ok:
        raise PlanError("schema", f"{where} = {_short(value)} is not of type {kind}")
    if "enum" in schema and value not in schema["enum"]:
        raise PlanError("schema", f"{where} = {_short(value)} is not one of {schema['enum']}")
    if type(value) in (int, float):
        if not -MAX_NUMBER <= value <= MAX_NUMBER:  # NaN compares false: out of range too
            raise PlanError("schema", f"{where} = {_short(value)} is out of range")
        if value < schema.get("minimum", -MAX_NUMBER) or value > schema.get("maximum", MAX_NUMBER):
            raise PlanError("schema", f"{where} = {_short(value)} is outside "
                            f"[{schema.get('minimum', '-inf')}, {schema.get('maximum', 'inf')}]")
    if isinstance(value, str):
        if not schema.get("minLength", 0) <= len(value) <= min(schema.get("maxLength", MAX_STRING), MAX_STRING):
            raise PlanError("schema", f"{where} has {len(value)} characters, outside the allowed length")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            raise PlanError("schema", f"{where} = {_short(value)} does not match {schema['pattern']}")
    if isinstance(value, list):
        if len(value) > schema.get("maxItems", 100):
            raise PlanError("schema", f"{where} has {len(value)} items, more than allowed")
        for i, item in enumerate(value):
            check_schema(item, schema.get("items", {}), f"{where}[{i}]", refs_free)
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                raise PlanError("schema", f"{where} lacks the required argument {key!r}")
        for key, item in value.items():
            if key not in properties:
                if schema.get("additionalProperties", True) is False:
                    raise PlanError("schema", f"{where} has an unknown argument {_short(key)}")
                continue
            check_schema(item, properties[key], f"{where}.{key}", refs_free)


def check_plan(calls: list[tuple[str, dict]], offered: dict[str, tuple[dict, Any]]) -> None:
    """Checks that need no state: offered names, backward references, schemas (references as wildcards)."""
    for i, (name, arguments) in enumerate(calls):
        if name not in offered:
            raise PlanError("unknown_tool", f"call {i} names {_short(name)}, which is not an offered tool")
        for index, _ in references(arguments):
            if index >= i:
                raise PlanError("bad_reference", f"call {i} refers to ${index}; refer only to earlier calls")
        check_schema(arguments, offered[name][0]["function"]["parameters"], f"call {i} ({name})", True)


def run_plan(calls: list[tuple[str, dict]], offered: dict[str, tuple[dict, Any]], state: Any,
             tool_error: type[Exception], trace: list[Any] | None = None) -> dict:
    """The plan run on a copy of `state`: {"answer": last result, "state": final state} or {"error": ...}.
    `trace`, when given, receives each call's result."""
    if not isinstance(state, dict):
        return {"error": "bad_state: a test's state must be an object"}
    state = copy.deepcopy(state)
    results: list[Any] = [] if trace is None else trace
    try:
        for i, (name, arguments) in enumerate(calls):
            resolved = _resolve(arguments, results, i)
            definition, implementation = offered[name]
            check_schema(resolved, definition["function"]["parameters"], f"call {i} ({name})", False)
            try:
                result = implementation(state, resolved)
            except tool_error as exc:
                result = {"error": str(exc)[:300]}
            results.append(json.loads(json.dumps(result, allow_nan=False)))  # a copy, detached from the state
    except PlanError as exc:
        return {"error": str(exc)[:400]}
    except (KeyError, TypeError, ValueError, AttributeError, ArithmeticError, RecursionError) as exc:
        return {"error": f"tool_failed: {type(exc).__name__} {str(exc)[:200]} (is the test's state well formed?)"}
    return {"answer": results[-1], "state": state}


def hard_coded(calls: list[tuple[str, dict]], results: list[Any]) -> list[tuple[str, dict]] | None:
    """The plan with every reference replaced by the value it had in one run (`results`): what a policy that
    copied values from the tests it was shown would write. None when the plan has no reference."""
    if not any(references(arguments) for _, arguments in calls):
        return None
    try:
        return [(name, _resolve(arguments, results, i)) for i, (name, arguments) in enumerate(calls)]
    except (PlanError, IndexError):
        return None


def _resolve(value: Any, results: list[Any], i: int) -> Any:
    if isinstance(value, str):
        m = REFERENCE.fullmatch(value)
        if not m:
            return value
        target: Any = results[int(m.group(1))]
        for part in [p for p in m.group(2).split(".") if p]:
            if isinstance(target, dict) and part in target:
                target = target[part]
            elif isinstance(target, list) and part.isdigit() and int(part) < len(target):
                target = target[int(part)]
            else:
                raise PlanError("unresolved_reference", f"call {i}: {value} has no part {part!r} in that result")
        return copy.deepcopy(target)
    if isinstance(value, dict):
        return {k: _resolve(v, results, i) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve(v, results, i) for v in value]
    return value


def judge(request: dict, tools: dict[str, tuple[dict, Any]], tool_error: type[Exception]) -> dict:
    offered = {name: tools[name] for name in request["tools"] if name in tools}
    full, states = set(request.get("full", [])), request["states"]
    out = []
    for p, text in enumerate(request["plans"]):
        try:
            calls = parse_plan(text)
            check_plan(calls, offered)
        except PlanError as exc:
            if str(exc).startswith("format:"):
                out.append({"format": str(exc)[8:300]})
                continue
            calls, outcomes = [], [{"error": str(exc)[:400]} for _ in states]
        else:
            traces: list[list[Any]] = [[] for _ in states]
            outcomes = [run_plan(calls, offered, state, tool_error, trace) for state, trace in zip(states, traces)]
        entry: dict[str, Any] = {"digests": [digest(o) for o in outcomes]}
        if p in full:
            entry["outcomes"] = outcomes
            fixed = hard_coded(calls, traces[0]) if calls and states else None
            if fixed is not None:  # a full plan's references, hard-coded from test 0, run on every test
                entry["hard_coded_digests"] = [digest(run_plan(fixed, offered, state, tool_error)) for state in states]
        out.append(entry)
    return {"plans": out}


def digest(outcome: Any) -> str:
    return hashlib.sha256(json.dumps(outcome, sort_keys=True).encode()).hexdigest()[:16]


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def main() -> None:
    sys.path.insert(0, os.getcwd())
    import simtools  # placed beside this program by the host

    request = json.loads(sys.stdin.read())
    sys.stdout.write(json.dumps(judge(request, simtools.TOOLS, simtools.ToolError), allow_nan=False))


if __name__ == "__main__":
    main()
