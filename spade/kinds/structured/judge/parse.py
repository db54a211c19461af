"""Untrusted JSON or YAML text -> plain JSON data (dict, list, str, int, float, bool, None), or `Refused` with
one sentence. Runs inside the sandbox; every bound below turns a hostile document into a verdict, not a hang.

Bounds: size, nesting depth, node count after YAML aliases are expanded (billion laughs), the number of aliases,
number magnitude (no 10**100000-digit ints, no inf/nan), a document that is a bare scalar (prose reads as one
in YAML), duplicate keys, keys that are not strings (YAML reads
`on:` as a bool), tags beyond YAML's safe set and values that are not JSON data (dates, bytes, sets) are refused.
"""

from __future__ import annotations

import json
import math
from typing import Any

MAX_CHARS = 64_000
MAX_DEPTH = 32
MAX_NODES = 20_000
MAX_ALIASES = 200
MAX_INT_BITS = 256
MAX_NUMBER_CHARS = 100


class Refused(Exception):
    """The document cannot be read as bounded JSON data; the message says why."""


def parse_document(text: str, fmt: str) -> Any:
    if len(text) > MAX_CHARS:
        raise Refused(f"the document has {len(text)} characters; at most {MAX_CHARS} are read")
    try:
        data = _json(text) if fmt == "json" else _yaml(text)
    except RecursionError:
        raise Refused(f"the document is nested more than {MAX_DEPTH} levels deep") from None
    check_tree(data)
    if type(data) not in (dict, list):  # prose is a valid YAML scalar: a document is a mapping or a list
        shown = "nothing" if data is None else f"a single {type(data).__name__}"
        raise Refused(f"the document is {shown}, not a mapping or a list")
    return data


def _json(text: str) -> Any:
    try:
        return json.loads(text, object_pairs_hook=_object, parse_constant=_constant, parse_int=_int,
                          parse_float=_float)
    except json.JSONDecodeError as exc:
        raise Refused(f"not valid JSON: {exc}") from None


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set[str] = set()
        duplicate = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise Refused(f"duplicate key {duplicate[:60]!r}")
    return data


def _constant(name: str) -> Any:
    raise Refused(f"{name} is not a JSON number")


def _int(text: str) -> int:
    if len(text) > MAX_NUMBER_CHARS:
        raise Refused(f"a number with {len(text)} digits is out of range")
    return int(text)


def _float(text: str) -> float:
    if len(text) > MAX_NUMBER_CHARS:
        raise Refused(f"a number of {len(text)} characters is out of range")
    value = float(text)
    if not math.isfinite(value):
        raise Refused(f"the number {text[:40]} is out of range")
    return value


def _yaml(text: str) -> Any:
    import yaml  # shipped beside the judge for YAML documents only

    try:
        return yaml.load(text, Loader=_bounded_loader(yaml))  # noqa: S506 - a SafeLoader subclass with bounds
    except yaml.YAMLError as exc:
        raise Refused("not valid YAML: " + " ".join(str(exc).split())[:240]) from None
    except ValueError as exc:  # an int literal too long for int()
        raise Refused(f"a value is out of range: {str(exc)[:120]}") from None


def _bounded_loader(yaml: Any) -> type:
    str_tag, merge_tag = "tag:yaml.org,2002:str", "tag:yaml.org,2002:merge"

    class BoundedLoader(yaml.SafeLoader):
        """SafeLoader that counts aliases and depth while composing and refuses duplicate or non-string keys."""

        aliases = 0
        depth = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                self.aliases += 1
                if self.aliases > MAX_ALIASES:
                    raise Refused(f"the document uses more than {MAX_ALIASES} aliases")
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise Refused(f"the document is nested more than {MAX_DEPTH} levels deep")
            try:
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            seen: set[str] = set()
            for key_node, _ in node.value:
                if key_node.tag == merge_tag:
                    continue
                line = key_node.start_mark.line + 1
                if not isinstance(key_node, yaml.ScalarNode) or key_node.tag != str_tag:
                    shown = key_node.value if isinstance(key_node, yaml.ScalarNode) else "a collection"
                    raise Refused(f"line {line}: the key {str(shown)[:40]!r} is not read as a string; quote it")
                if key_node.value in seen:
                    raise Refused(f"line {line}: duplicate key {key_node.value[:60]!r}")
                seen.add(key_node.value)
            return super().construct_mapping(node, deep)

    return BoundedLoader


def check_tree(data: Any) -> None:
    """Refuse data that is not bounded JSON: too deep, too many nodes (aliases counted each time they are used),
    keys that are not strings, numbers out of range, values of other types. Iterative."""
    stack: list[tuple[Any, int, tuple[Any, ...]]] = [(data, 0, ())]
    nodes = 0
    while stack:
        value, depth, where = stack.pop()
        nodes += 1
        if nodes > MAX_NODES:
            raise Refused(f"the document holds more than {MAX_NODES} values (aliases count each time they are used)")
        if depth > MAX_DEPTH:
            raise Refused(f"the document is nested more than {MAX_DEPTH} levels deep")
        kind = type(value)
        if kind is dict:
            for key, item in value.items():
                if type(key) is not str:
                    raise Refused(f"{location(where)}: the key {key!r:.40} is not a string")
                stack.append((item, depth + 1, (*where, key)))
        elif kind is list:
            stack.extend((item, depth + 1, (*where, i)) for i, item in enumerate(value))
        elif kind is float:
            if not math.isfinite(value):
                raise Refused(f"{location(where)}: the number {value} is out of range")
        elif kind is int:
            if value.bit_length() > MAX_INT_BITS:
                raise Refused(f"{location(where)}: an integer of {value.bit_length()} bits is out of range")
        elif kind not in (str, bool, type(None)):
            raise Refused(f"{location(where)}: a {kind.__name__} value is not JSON data (quote it as a string)")


def location(path: tuple[Any, ...]) -> str:
    """`$.a.b[2]` for the path ('a', 'b', 2)."""
    out = "$"
    for step in path:
        out += f"[{step}]" if type(step) is int else f".{str(step)[:40]}"
    return out
