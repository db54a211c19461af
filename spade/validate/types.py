"""Python type annotations, as written in task signatures, checked against plain JSON values.

In: an annotation's AST (int, float, str, bool, None, list[...], dict[...], tuple[...], Optional[...], X | Y, Any;
typing's List/Dict/Tuple/Union spellings too). Out: an `Ann` tree and `fits(value, ann)`. Unknown names raise
`UnsupportedAnnotation`. bool is not int; an int fits float, as in Python.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass
from typing import Any

from spade.untrusted import MAX_VALUE_DEPTH, is_text

_SCALARS = {"int", "float", "str", "bool", "None", "Any", "object", "list", "dict", "tuple", "List", "Dict", "Tuple"}
_EXACT: dict[str, type] = {"int": int, "str": str, "bool": bool}
_BARE = {"List": "list", "Dict": "dict", "Tuple": "tuple", "object": "Any"}


class UnsupportedAnnotation(ValueError):
    """An annotation that is not a JSON-expressible type this checker understands."""


@dataclass(frozen=True, slots=True)
class Ann:
    """`kind` is int/float/str/bool/None/Any/list/dict/tuple/union; `args` the parameters (tuple: ... last = any length)."""

    kind: str
    args: tuple[Ann, ...] = ()
    variadic: bool = False


ANY = Ann("Any")


def parse_annotation(node: ast.expr | None) -> Ann:
    if node is None:
        return ANY
    if isinstance(node, ast.Constant) and node.value is None:
        return Ann("None")
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return parse_annotation(ast.parse(node.value, mode="eval").body)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "typing":
        return parse_annotation(ast.Name(node.attr))
    if isinstance(node, ast.Name):
        if node.id not in _SCALARS:
            raise UnsupportedAnnotation(f"type '{node.id}' is not a JSON type")
        return Ann(_BARE.get(node.id, node.id))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return Ann("union", (parse_annotation(node.left), parse_annotation(node.right)))
    if isinstance(node, ast.Subscript):
        return _subscript(node)
    raise UnsupportedAnnotation(f"annotation '{ast.unparse(node)}' is not understood")


def _subscript(node: ast.Subscript) -> Ann:
    base = node.value.attr if isinstance(node.value, ast.Attribute) else getattr(node.value, "id", None)
    items = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
    if base in ("list", "List") and len(items) == 1:
        return Ann("list", (parse_annotation(items[0]),))
    if base in ("dict", "Dict") and len(items) == 2:
        return Ann("dict", (parse_annotation(items[0]), parse_annotation(items[1])))
    if base in ("tuple", "Tuple"):
        variadic = bool(items) and isinstance(items[-1], ast.Constant) and items[-1].value is Ellipsis
        elems = items[:-1] if variadic else items
        return Ann("tuple", tuple(parse_annotation(e) for e in elems), variadic)
    if base == "Optional" and len(items) == 1:
        return Ann("union", (parse_annotation(items[0]), Ann("None")))
    if base == "Union":
        return Ann("union", tuple(parse_annotation(e) for e in items))
    raise UnsupportedAnnotation(f"annotation '{ast.unparse(node)}' is not a JSON type")


def fits(value: Any, ann: Ann) -> bool:
    """True when the JSON value `value` is an instance of the annotated type."""
    t = type(value)
    kind = ann.kind
    if kind == "Any":
        return True
    if kind == "union":
        return any(fits(value, a) for a in ann.args)
    if kind == "None":
        return value is None
    if kind in _EXACT:
        return t is _EXACT[kind]
    if kind == "float":
        return t in (int, float) and not (t is float and math.isnan(value))
    if kind == "list":
        if t is not list:
            return False
        return not ann.args or all(fits(v, ann.args[0]) for v in value)
    if kind == "dict":
        if t is not dict:
            return False
        return not ann.args or all(fits(k, ann.args[0]) and fits(v, ann.args[1]) for k, v in value.items())
    if kind == "tuple":
        if t not in (list, tuple):
            return False
        if ann.variadic:
            return all(fits(v, ann.args[0]) for v in value) if ann.args else True
        return not ann.args or (len(value) == len(ann.args) and all(fits(v, a) for v, a in zip(value, ann.args)))
    raise AssertionError(f"unhandled annotation kind {kind}")


def is_json(value: Any, _depth: int = 0) -> bool:
    """True for plain JSON values: None, bool, int, finite float, str (text UTF-8 carries: no lone surrogate), list,
    dict with str keys (no tuples), nested at most MAX_VALUE_DEPTH levels (what the sandbox codec carries: `[[1]]` is
    two levels)."""
    t = type(value)
    if t is str:
        return is_text(value)
    if value is None or t in (bool, int):
        return True
    if t is float:
        return math.isfinite(value)
    if t not in (list, dict) or _depth >= MAX_VALUE_DEPTH:
        return False
    if t is list:
        return all(is_json(v, _depth + 1) for v in value)
    return all(type(k) is str and is_text(k) and is_json(v, _depth + 1) for k, v in value.items())


def is_plain(value: Any, _depth: int = 0) -> bool:
    """True for a plain Python value an answer can write as a literal: is_json's values, and tuples, sets,
    frozensets and bytes too, with any hashable keys, nested at most MAX_VALUE_DEPTH levels."""
    t = type(value)
    if t is str:
        return is_text(value)
    if value is None or t in (bool, int, bytes) or t is float and math.isfinite(value):
        return True
    if t not in (list, tuple, set, frozenset, dict) or _depth >= MAX_VALUE_DEPTH:
        return False
    items = [*value.keys(), *value.values()] if t is dict else value
    return all(is_plain(v, _depth + 1) for v in items)


def are_json_args(args: Any) -> bool:
    """True for one call's arguments (a list or tuple) when each of them is_json."""
    return type(args) in (list, tuple) and all(is_json(a) for a in args)
