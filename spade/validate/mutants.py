"""AST mutants of a reference solution, used to check that a task's tests discriminate.

In: the reference's source. Out: up to `limit` distinct mutant sources, each differing by one small fault:
an arithmetic operator swapped, a comparison negated, an integer constant off by one, a branch dropped,
`and`/`or` swapped, a `not` or minus removed, a builtin swapped (max/min, any/all…), a one-sided slice
flipped, a dict comprehension's key and value swapped. Deterministic.
"""

from __future__ import annotations

import ast
import hashlib
import random
from collections.abc import Callable

_BINOP: dict[type, type] = {
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Add, ast.FloorDiv: ast.Mult, ast.Div: ast.Mult,
    ast.Mod: ast.FloorDiv, ast.Pow: ast.Mult, ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd,
}
_NEGATED: dict[type, type] = {
    ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.LtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
    ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}
_BUILTINS = {"max": "min", "min": "max", "any": "all", "all": "any", "sum": "len", "sorted": "list"}

Mutation = Callable[[ast.AST, dict[int, tuple[ast.AST, str, int | None]]], None]


def mutants(source: str, limit: int = 30) -> list[str]:
    """Distinct compilable single-fault mutants of `source`, at most `limit`, chosen deterministically."""
    original = ast.unparse(ast.parse(source))
    sites = [(i, k) for i, node in enumerate(ast.walk(ast.parse(source))) for k in range(len(_mutations(node)))]
    rng = random.Random(hashlib.sha256(original.encode()).hexdigest())
    rng.shuffle(sites)
    out: list[str] = []
    seen = {original}
    for index, k in sites:
        if len(out) >= limit:
            break
        text = _apply(source, index, k)
        if text is not None and text not in seen:
            seen.add(text)
            out.append(text)
    return out


def _apply(source: str, index: int, k: int) -> str | None:
    tree = ast.parse(source)
    nodes = list(ast.walk(tree))
    _mutations(nodes[index])[k](nodes[index], _parents(tree))
    ast.fix_missing_locations(tree)
    try:
        text = ast.unparse(tree)
        compile(text, "<mutant>", "exec")
    except (SyntaxError, ValueError, TypeError):
        return None
    return text


def _mutations(node: ast.AST) -> list[Mutation]:
    """The faults that can be injected at this node, as in-place edits."""
    out: list[Mutation] = []
    if isinstance(node, (ast.BinOp, ast.AugAssign)) and type(node.op) in _BINOP:
        out.append(lambda n, p: setattr(n, "op", _BINOP[type(n.op)]()))
    elif isinstance(node, ast.Compare):
        for j in range(len(node.ops)):
            out.append(lambda n, p, j=j: n.ops.__setitem__(j, _NEGATED[type(n.ops[j])]()))
    elif isinstance(node, ast.Constant) and type(node.value) is int:
        out.append(lambda n, p: setattr(n, "value", n.value + 1))
        out.append(lambda n, p: setattr(n, "value", n.value - 1))
    elif isinstance(node, ast.Constant) and type(node.value) is bool:
        out.append(lambda n, p: setattr(n, "value", not n.value))
    elif isinstance(node, ast.If):
        out.append(lambda n, p: setattr(n, "body", [ast.Pass()]))
        if node.orelse:
            out.append(lambda n, p: setattr(n, "orelse", []))
    elif isinstance(node, ast.IfExp):
        out.append(lambda n, p: _swap(n, "body", "orelse"))
    elif isinstance(node, ast.BoolOp):
        out.append(lambda n, p: setattr(n, "op", ast.Or() if isinstance(n.op, ast.And) else ast.And()))
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
        out.append(lambda n, p: _replace(n, n.operand, p))
    elif isinstance(node, ast.Slice) and (node.lower is None) != (node.upper is None):
        out.append(lambda n, p: _swap(n, "lower", "upper"))
    elif isinstance(node, ast.DictComp):
        out.append(lambda n, p: _swap(n, "key", "value"))
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if node.func.id in _BUILTINS:
            out.append(lambda n, p: setattr(n.func, "id", _BUILTINS[n.func.id]))
        elif node.func.id == "abs" and len(node.args) == 1:
            out.append(lambda n, p: _replace(n, n.args[0], p))
    return out


def _swap(node: ast.AST, a: str, b: str) -> None:
    first, second = getattr(node, a), getattr(node, b)
    setattr(node, a, second)
    setattr(node, b, first)


def _parents(tree: ast.AST) -> dict[int, tuple[ast.AST, str, int | None]]:
    # id(child) -> (parent, field, position in a list field or None), to swap an expression for another.
    out: dict[int, tuple[ast.AST, str, int | None]] = {}
    for parent in ast.walk(tree):
        for name, value in ast.iter_fields(parent):
            if isinstance(value, ast.AST):
                out[id(value)] = (parent, name, None)
            elif isinstance(value, list):
                for i, item in enumerate(value):
                    if isinstance(item, ast.AST):
                        out[id(item)] = (parent, name, i)
    return out


def _replace(old: ast.AST, new: ast.AST, parents: dict[int, tuple[ast.AST, str, int | None]]) -> None:
    parent, name, pos = parents[id(old)]
    if pos is None:
        setattr(parent, name, new)
    else:
        getattr(parent, name)[pos] = new
