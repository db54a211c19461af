"""Canonical forms for duplicate detection.

In: a task's description and reference source. Out: a normalised description (case, punctuation and spacing
folded), a canonical reference (docstrings and comments dropped, every name the code binds renamed v0, v1, …
in order of first appearance), the exact-duplicate key, and the shingles MinHash works on.
"""

from __future__ import annotations

import ast
import hashlib
import re

from spade.pycode import parse_untrusted
from spade.untrusted import MAX_ANSWER_BYTES, over

_WORD = re.compile(r"[a-z0-9_]+")


def normalize_description(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def canonical_code(source: str) -> str:
    """The source with docstrings and comments gone and bound names canonicalised; unparsable code (also code too
    deep for the parser, or not encodable) stays as is, with its whitespace folded."""
    try:
        tree = _parsed(source)
    except SyntaxError:
        return " ".join(source.split())
    _drop_docstrings(tree)
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        bound = _bound_name(node)
        if bound is not None and bound not in names:
            names[bound] = f"v{len(names)}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in names:
            node.id = names[node.id]
        elif isinstance(node, ast.arg) and node.arg in names:
            node.arg = names[node.arg]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name in names:
            node.name = names[node.name]
    return ast.unparse(tree)


def _parsed(source: str) -> ast.Module:
    """The tree of `source`; SyntaxError for what does not parse and for code over MAX_ANSWER_BYTES (not parsed
    on the host: its whitespace-folded text is its key)."""
    if over(source, MAX_ANSWER_BYTES):
        raise SyntaxError(f"code over {MAX_ANSWER_BYTES} bytes")
    return parse_untrusted(source)


def _bound_name(node: ast.AST) -> str | None:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name
    if isinstance(node, ast.arg):
        return node.arg
    if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
        return node.id
    return None


def _drop_docstrings(tree: ast.AST) -> None:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and body:
            first = body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                node.body = body[1:] or [ast.Pass()]


def exact_key(description: str, code: str) -> str:
    text = normalize_description(description) + "\n" + canonical_code(code)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def shingles(description: str, code: str, words: int = 3, nodes: int = 4) -> set[str]:
    """Word n-grams of the description plus n-grams of the code's AST node types (names and constants ignored)."""
    tokens = normalize_description(description).split()
    out = {"d:" + " ".join(tokens[i:i + words]) for i in range(max(len(tokens) - words + 1, 1)) if tokens}
    try:
        types = [type(n).__name__ for n in ast.walk(_parsed(code))]
    except SyntaxError:
        types = code.split()
    out |= {"a:" + " ".join(types[i:i + nodes]) for i in range(max(len(types) - nodes + 1, 1)) if types}
    return out
