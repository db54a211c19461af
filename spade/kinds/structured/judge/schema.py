"""The subset of JSON Schema (draft 2020-12 keywords) the structured kind checks documents against, written here
so the sandbox needs no third-party package. `problem(schema, value)` is the first violation as one sentence
(None when the value conforms); `schema_problem(schema)` says what is wrong with a schema itself (the host's
static check of a task). Keywords outside SUPPORTED are refused there, so a task never relies on one silently.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

ANNOTATIONS = frozenset({"$schema", "$id", "title", "description", "default", "examples", "$comment"})
SUPPORTED = frozenset({
    "type", "enum", "const", "properties", "required", "additionalProperties", "minProperties", "maxProperties",
    "items", "minItems", "maxItems", "uniqueItems", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "multipleOf", "minLength", "maxLength", "pattern", "allOf", "anyOf", "oneOf", "not",
}) | ANNOTATIONS
TYPES = frozenset({"object", "array", "string", "integer", "number", "boolean", "null"})
MAX_SCHEMA_DEPTH = 24


def problem(schema: Any, value: Any, where: str = "$") -> str | None:
    """The first way `value` breaks `schema`, as one sentence naming the location; None when it conforms."""
    if schema is True or schema == {}:
        return None
    if schema is False:
        return f"{where}: no value is allowed here"
    for keys, check in _CHECKS:
        if any(k in schema for k in keys):
            found = check(schema, value, where)
            if found:
                return found
    return None


def is_type(value: Any, name: str) -> bool:
    kind = type(value)
    if name == "integer":
        return kind is int or (kind is float and value.is_integer())
    if name == "number":
        return kind in (int, float)
    return kind is {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}[name]


def same(a: Any, b: Any) -> bool:
    """JSON equality: 1 == 1.0, but true is not 1 and key order does not matter."""
    return canonical(a) == canonical(b)


def canonical(value: Any) -> str:
    """The value as canonical JSON text: equal JSON values (1 and 1.0, keys in any order) give equal text."""
    return json.dumps(_numbers(value), sort_keys=True)


def _numbers(value: Any) -> Any:
    if type(value) is float and value.is_integer():
        return int(value)
    if type(value) is list:
        return [_numbers(v) for v in value]
    if type(value) is dict:
        return {k: _numbers(v) for k, v in value.items()}
    return value


def _type(schema: dict, value: Any, where: str) -> str | None:
    names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
    if any(is_type(value, n) for n in names):
        return None
    return f"{where}: {_shown(value)} is not of type {' or '.join(names)}"


def _enum(schema: dict, value: Any, where: str) -> str | None:
    if any(same(value, option) for option in schema["enum"]):
        return None
    return f"{where}: {_shown(value)} is not one of {_shown(schema['enum'])}"


def _const(schema: dict, value: Any, where: str) -> str | None:
    return None if same(value, schema["const"]) else f"{where}: {_shown(value)} is not {_shown(schema['const'])}"


def _object(schema: dict, value: Any, where: str) -> str | None:
    if type(value) is not dict:
        return None
    for name in schema.get("required", ()):
        if name not in value:
            return f"{where}: the required key {name!r} is missing"
    props = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    for key, item in value.items():
        sub = props.get(key, extra)
        if sub is False:
            return f"{where}: the key {key[:40]!r} is not allowed"
        found = problem(sub, item, f"{where}.{key[:40]}")
        if found:
            return found
    size = len(value)
    if size < schema.get("minProperties", 0):
        return f"{where}: {size} keys, fewer than {schema['minProperties']}"
    if "maxProperties" in schema and size > schema["maxProperties"]:
        return f"{where}: {size} keys, more than {schema['maxProperties']}"
    return None


def _array(schema: dict, value: Any, where: str) -> str | None:
    if type(value) is not list:
        return None
    if len(value) < schema.get("minItems", 0):
        return f"{where}: {len(value)} items, fewer than {schema['minItems']}"
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        return f"{where}: {len(value)} items, more than {schema['maxItems']}"
    if schema.get("uniqueItems"):
        seen: set[str] = set()
        for i, item in enumerate(value):
            key = canonical(item)
            if key in seen:
                return f"{where}[{i}]: {_shown(item)} repeats an earlier item"
            seen.add(key)
    if "items" in schema:
        for i, item in enumerate(value):
            found = problem(schema["items"], item, f"{where}[{i}]")
            if found:
                return found
    return None


def _number(schema: dict, value: Any, where: str) -> str | None:
    if type(value) not in (int, float):
        return None
    if "minimum" in schema and value < schema["minimum"]:
        return f"{where}: {value} is less than the minimum {schema['minimum']}"
    if "maximum" in schema and value > schema["maximum"]:
        return f"{where}: {value} is more than the maximum {schema['maximum']}"
    if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
        return f"{where}: {value} is not more than {schema['exclusiveMinimum']}"
    if "exclusiveMaximum" in schema and value >= schema["exclusiveMaximum"]:
        return f"{where}: {value} is not less than {schema['exclusiveMaximum']}"
    if "multipleOf" in schema:
        ratio = value / schema["multipleOf"]
        if not (math.isfinite(ratio) and abs(ratio - round(ratio)) < 1e-9):
            return f"{where}: {value} is not a multiple of {schema['multipleOf']}"
    return None


def _string(schema: dict, value: Any, where: str) -> str | None:
    if type(value) is not str:
        return None
    if len(value) < schema.get("minLength", 0):
        return f"{where}: {_shown(value)} is shorter than {schema['minLength']} characters"
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        return f"{where}: the string is longer than {schema['maxLength']} characters"
    if "pattern" in schema and re.search(schema["pattern"], value) is None:
        return f"{where}: {_shown(value)} does not match the pattern {schema['pattern']!r}"
    return None


def _all_of(schema: dict, value: Any, where: str) -> str | None:
    for sub in schema["allOf"]:
        found = problem(sub, value, where)
        if found:
            return found
    return None


def _any_of(schema: dict, value: Any, where: str) -> str | None:
    if any(problem(sub, value, where) is None for sub in schema["anyOf"]):
        return None
    return f"{where}: {_shown(value)} matches none of the anyOf alternatives"


def _one_of(schema: dict, value: Any, where: str) -> str | None:
    matches = sum(problem(sub, value, where) is None for sub in schema["oneOf"])
    return None if matches == 1 else f"{where}: {_shown(value)} matches {matches} of the oneOf alternatives, not 1"


def _not(schema: dict, value: Any, where: str) -> str | None:
    return f"{where}: {_shown(value)} matches a schema it must not" if problem(schema["not"], value, where) is None else None


_CHECKS = (
    (("type",), _type), (("enum",), _enum), (("const",), _const),
    (("properties", "required", "additionalProperties", "minProperties", "maxProperties"), _object),
    (("items", "minItems", "maxItems", "uniqueItems"), _array),
    (("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"), _number),
    (("minLength", "maxLength", "pattern"), _string),
    (("allOf",), _all_of), (("anyOf",), _any_of), (("oneOf",), _one_of), (("not",), _not),
)


def _shown(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def schema_problem(schema: Any, where: str = "schema", depth: int = 0) -> str | None:
    """What is wrong with `schema` itself (an unsupported keyword, a value of the wrong type), or None."""
    if type(schema) is bool:
        return None
    if type(schema) is not dict:
        return f"{where} must be an object or a boolean, not {_shown(schema)}"
    if depth > MAX_SCHEMA_DEPTH:
        return f"{where} nests schemas more than {MAX_SCHEMA_DEPTH} levels deep"
    for key, item in schema.items():
        if key not in SUPPORTED:
            return (f"{where}: the keyword {key[:40]!r} is not supported; use only "
                    f"{', '.join(sorted(SUPPORTED - ANNOTATIONS))}")
        found = _keyword_problem(key, item, f"{where}.{key}", depth)
        if found:
            return found
    return None


def _keyword_problem(key: str, item: Any, where: str, depth: int) -> str | None:
    if key == "type":
        names = item if type(item) is list else [item]
        if not names or any(n not in TYPES for n in names):
            return f"{where} = {_shown(item)} must name types among {', '.join(sorted(TYPES))}"
    elif key == "properties":
        if type(item) is not dict:
            return f"{where} must be an object of schemas"
        for name, sub in item.items():
            found = schema_problem(sub, f"{where}.{name}", depth + 1)
            if found:
                return found
    elif key in ("additionalProperties", "items", "not"):
        return schema_problem(item, where, depth + 1)
    elif key in ("allOf", "anyOf", "oneOf"):
        if type(item) is not list or not item:
            return f"{where} must be a non-empty list of schemas"
        for i, sub in enumerate(item):
            found = schema_problem(sub, f"{where}[{i}]", depth + 1)
            if found:
                return found
    elif key == "required":
        if type(item) is not list or any(type(n) is not str for n in item):
            return f"{where} must be a list of key names"
    elif key == "enum":
        if type(item) is not list or not item:
            return f"{where} must be a non-empty list"
    elif key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"):
        if type(item) not in (int, float) or (key == "multipleOf" and item <= 0):
            return f"{where} = {_shown(item)} must be a number" + (" above 0" if key == "multipleOf" else "")
    elif key in ("minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"):
        if type(item) is not int or item < 0:
            return f"{where} = {_shown(item)} must be a non-negative integer"
    elif key == "uniqueItems":
        if type(item) is not bool:
            return f"{where} must be true or false"
    elif key == "pattern":
        if type(item) is not str:
            return f"{where} must be a regular expression string"
        try:
            re.compile(item)
        except re.error as exc:
            return f"{where} = {_shown(item)} is not a regular expression: {exc}"
    return None
