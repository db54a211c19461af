"""Bugs to repair: one to three of SPADE's own mutations (spade.validate.mutants) applied on top of one another.

In: a reference's source, how many bugs, which kinds of bug, a Random. Out: `Bug`s — the buggy source (as
`ast.unparse` writes it), the kind of each injected fault and the buggy lines — each differing from the reference
in as many separate places as it has bugs. A pure function of its arguments.
"""

from __future__ import annotations

import ast
import difflib
import itertools
import random
from dataclasses import dataclass
from typing import Any

from spade.validate.mutants import mutants

# What each of the mutant maker's faults is, as a repair task names it (spade.validate.mutants lists the faults).
OPERATOR = "operator"  # an arithmetic or bitwise operator swapped
COMPARISON = "comparison"  # a comparison negated
CONSTANT = "constant"  # an integer constant off by one, a boolean flipped
BRANCH = "branch"  # a branch dropped, or a conditional expression's arms swapped
LOGIC = "logic"  # and/or swapped, a `not` or a minus removed
BUILTIN = "builtin"  # a builtin swapped (max/min, any/all…) or abs() dropped
SLICE = "slice"  # a one-sided slice flipped, a dict comprehension's key and value swapped
BUG_KINDS = (OPERATOR, COMPARISON, CONSTANT, BRANCH, LOGIC, BUILTIN, SLICE)
MUTANT_LIMIT = 64


@dataclass(frozen=True, slots=True)
class Bug:
    """A buggy version of a reference: its source, the kind of each fault, and the (1-based) lines it changed."""

    code: str
    kinds: tuple[str, ...]
    lines: tuple[int, ...]

    def to_json(self) -> dict[str, object]:
        return {"code": self.code, "kinds": list(self.kinds), "lines": list(self.lines)}


def bugs(reference: str, count: int, kinds: frozenset[str] | None, rng: random.Random, limit: int) -> list[Bug]:
    """Up to `limit` distinct buggy versions of `reference`, each with `count` faults (of `kinds`, any if None) in
    `count` separate places (lines at least one apart)."""
    original = ast.unparse(ast.parse(reference))
    before = list(ast.walk(ast.parse(original)))
    singles = [(m, _kind(before, m)) for m in mutants(original, MUTANT_LIMIT)]
    singles = [(m, k) for m, k in singles if kinds is None or k in kinds]
    rng.shuffle(singles)
    if count == 1:
        return [Bug(m, (k,), changed_lines(original, m)[1]) for m, k in singles[:limit]]
    return _combined(original, singles, count, rng, limit)


def _combined(original: str, singles: list[tuple[str, str]], count: int, rng: random.Random,
              limit: int) -> list[Bug]:
    """Bugs of `count` single faults that each change one line, on lines apart: the faults stacked, as applying
    one mutation to another's mutant would."""
    lines = original.splitlines()
    one_line = [(changed[0] - 1, m.splitlines()[changed[0] - 1], k) for m, k in singles
                if len(m.splitlines()) == len(lines) and len(changed := changed_lines(original, m)[1]) == 1]
    out: list[Bug] = []
    seen = {original}
    for _ in range(8 * limit):
        if len(out) >= limit or len(one_line) < count:
            break
        picked = sorted(rng.sample(one_line, count))
        if any(b[0] - a[0] < 2 for a, b in itertools.pairwise(picked)):
            continue
        new = list(lines)
        for at, text, _ in picked:
            new[at] = text
        code = "\n".join(new)
        if code in seen or changed_lines(original, code)[0] != count:
            continue
        seen.add(code)
        compile(code, "<bug>", "exec")  # each line compiled in its own mutant; together they must too
        out.append(Bug(code, tuple(k for _, _, k in picked), tuple(at + 1 for at, _, _ in picked)))
    return out


def changed_lines(original: str, code: str) -> tuple[int, tuple[int, ...]]:
    """How many separate places `code` differs from `original` in, and the lines of `code` that differ (1-based)."""
    ops = [op for op in difflib.SequenceMatcher(a=original.splitlines(), b=code.splitlines(), autojunk=False)
           .get_opcodes() if op[0] != "equal"]
    lines = sorted({j + 1 for _, _, _, j1, j2 in ops for j in range(j1, max(j2, j1 + 1))})
    return len(ops), tuple(lines)


def fault_kind(before: str, after: str) -> str:
    """The kind of the one fault that turned `before` into `after` (both single mutations apart)."""
    return _kind(list(ast.walk(ast.parse(before))), after)


def _kind(before: list[ast.AST], after: str) -> str:
    for x, y in zip(before, ast.walk(ast.parse(after))):
        kind = _local_change(x, y)
        if kind is not None:
            return kind
    return LOGIC


def _local_change(x: ast.AST, y: ast.AST) -> str | None:
    # Breadth-first, the first node that differs in itself (not in a descendant) is where the fault was injected.
    if type(x) is not type(y):
        if isinstance(y, ast.Pass):
            return BRANCH
        return BUILTIN if isinstance(x, ast.Call) else LOGIC
    other: Any = y  # the same node type as x
    if isinstance(x, (ast.BinOp, ast.AugAssign)) and type(x.op) is not type(other.op):
        return OPERATOR
    if isinstance(x, ast.Compare) and [type(o) for o in x.ops] != [type(o) for o in other.ops]:
        return COMPARISON
    if isinstance(x, ast.Constant) and x.value != other.value:
        return CONSTANT
    if isinstance(x, ast.BoolOp) and type(x.op) is not type(other.op):
        return LOGIC
    if isinstance(x, ast.Call) and isinstance(x.func, ast.Name) and isinstance(other.func, ast.Name) \
            and x.func.id != other.func.id:
        return BUILTIN
    if isinstance(x, ast.If) and _shape(x.body) + _shape(x.orelse) != _shape(other.body) + _shape(other.orelse):
        return BRANCH
    if isinstance(x, ast.IfExp) and ast.dump(x.body) == ast.dump(other.orelse) != ast.dump(other.body):
        return BRANCH
    if isinstance(x, (ast.Slice, ast.DictComp)) and ast.dump(x) != ast.dump(y) and _swapped(x, y):
        return SLICE
    return None


def _shape(stmts: list[ast.stmt]) -> list[str]:
    return [type(s).__name__ for s in stmts] + ["|"]


def _swapped(x: ast.AST, y: ast.AST) -> bool:
    a, b = ("lower", "upper") if isinstance(x, ast.Slice) else ("key", "value")
    return _dump(getattr(x, a)) == _dump(getattr(y, b)) and _dump(getattr(x, b)) == _dump(getattr(y, a))


def _dump(node: ast.AST | None) -> str:
    return ast.dump(node) if node is not None else ""
