"""Reading a code-reasoning answer on the host: a predicted value (deduction) or a call's arguments (abduction).

In: untrusted completion text. Out: the parsed value or argument tuple, or None when there is none (a format
failure, never an exception). The text is cut to MAX_ANSWER_BYTES before any parse; only the first line after the
prefill counts; values are Python literals (ast.literal_eval over a tree parsed by spade.pycode.parse_untrusted,
which bounds nesting), so nothing the model writes is ever run on the host.
"""

from __future__ import annotations

import ast
from typing import Any

from spade.pycode import parse_untrusted

MAX_ANSWER_BYTES = 2000
FENCE = "```"


def first_line(completion: str) -> str:
    """The completion's first non-blank line, cut to MAX_ANSWER_BYTES bytes, without a closing fence."""
    head = completion[: MAX_ANSWER_BYTES * 2].encode("utf-8", "ignore")[:MAX_ANSWER_BYTES].decode("utf-8", "ignore")
    for line in head.replace("\r\n", "\n").split("\n"):
        if line.strip():
            return line.split(FENCE, 1)[0].strip()
    return ""


def literal(text: str) -> tuple[bool, Any]:
    """(True, value) for a Python literal expression, else (False, None); a trailing '# comment' is dropped."""
    for candidate in (text, text.split("#", 1)[0]):
        node = _expression(candidate.strip())
        if node is not None:
            try:
                return True, ast.literal_eval(node)
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                continue
    return False, None


def predicted_value(completion: str) -> tuple[bool, Any]:
    """A deduction answer: the value on the completion's first line (the prefill asked `assert f(x) == `)."""
    return literal(first_line(completion))


def call_arguments(completion: str, entry_point: str) -> tuple[Any, ...] | None:
    """An abduction answer: the arguments of `entry_point(...)` in the first line, which continues the prefilled
    `assert entry_point(`; what follows the call (`== output`) is ignored. None unless every argument is a literal."""
    line = first_line(completion)
    node = _expression(f"{entry_point}({line}" if not line.startswith(f"{entry_point}(") else line)
    if node is None:  # the model may have closed the call and written "== value": parse up to the comparison
        node = _expression(f"{entry_point}({line.split('==', 1)[0].strip()}")
    if isinstance(node, ast.Expression) and isinstance(node.body, ast.Compare):
        node = ast.Expression(node.body.left)
    if not (isinstance(node, ast.Expression) and isinstance(node.body, ast.Call)):
        return None
    call = node.body
    if not (isinstance(call.func, ast.Name) and call.func.id == entry_point) or call.keywords:
        return None
    try:
        return tuple(ast.literal_eval(arg) for arg in call.args)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return None


def _expression(text: str) -> ast.Expression | None:
    """`text` parsed as one expression, or None."""
    if not text or len(text.encode("utf-8", "ignore")) > MAX_ANSWER_BYTES + 64:
        return None
    try:
        tree = parse_untrusted(text)
    except SyntaxError:
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr):
        return None
    return ast.Expression(tree.body[0].value)
