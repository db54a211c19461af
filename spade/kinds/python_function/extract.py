"""A forgiving code extractor for model completions.

In: the completion text (by default it continues after the prefilled opening fence) and the entry point.
Out: the Python source to run, or '' when there is no usable code (scored as a format failure, not an error).
Handles fenced or bare code, empty fences, prose before and after, several blocks, and truncated output.
"""

from __future__ import annotations

import ast
import re
import textwrap

from spade.kinds.python_function.prompt import ASSISTANT_PREFILL

FENCE = "```"
_LANG_TAG = re.compile(r"^[A-Za-z0-9_+.-]*\s*$")
_CODE_START = re.compile(r"^(def |async def |class |import |from \S+ import |@)")
# Top-level statements worth keeping: definitions and module constants. Example calls, prints and asserts the
# model adds after its function are dropped: they decide nothing and a wrong assert would fail a right function.
_KEPT = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign)


def extract_code(completion: str, entry_point: str | None = None, *, prefilled: bool = True) -> str:
    """The code to run from `completion`; '' when none is usable.

    `prefilled`: the prompt ended with the opening fence, so the completion starts inside a code block.
    Among several blocks, the first that defines `entry_point` wins; else the first that defines anything.
    """
    text = (ASSISTANT_PREFILL if prefilled else "") + completion.replace("\r\n", "\n")
    found: list[tuple[bool, str]] = []  # (defines entry point, code), fenced segments before bare ones
    segments = text.split(FENCE)
    fenced_first = [s for i, s in enumerate(segments) if i % 2 == 1] + [s for i, s in enumerate(segments) if i % 2 == 0]
    for segment in fenced_first:
        code = _code_in(_strip_lang_tag(segment))
        if code:
            found.append((_defines(code, entry_point), code))
    for defines_entry, code in found:
        if defines_entry:
            return code
    return found[0][1] if found else ""


def _strip_lang_tag(segment: str) -> str:
    first, _, rest = segment.partition("\n")
    return rest if _LANG_TAG.match(first) else segment


def _code_in(segment: str) -> str:
    """The longest parseable run of lines starting at the segment's top or at a code-looking line."""
    lines = textwrap.dedent(segment).split("\n")
    starts = [0] + [i for i, line in enumerate(lines) if i > 0 and _CODE_START.match(line)]
    for start in starts:
        code = _longest_parseable(lines, start)
        if code:
            return code
    return ""


def _longest_parseable(lines: list[str], start: int) -> str:
    for end in range(len(lines), start, -1):
        chunk = "\n".join(lines[start:end])
        try:
            tree = ast.parse(chunk)
        except (SyntaxError, ValueError):
            continue
        return _definitions_only(chunk, tree)
    return ""


def _definitions_only(source: str, tree: ast.Module) -> str:
    kept = [node for node in tree.body if isinstance(node, _KEPT)]
    if not any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) for n in kept):
        return ""
    lines = source.split("\n")
    pieces = []
    for node in kept:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        pieces.append("\n".join(lines[first - 1 : node.end_lineno]))
    return "\n".join(pieces).strip("\n") + "\n"


def _defines(code: str, entry_point: str | None) -> bool:
    if entry_point is None:
        return True
    tree = ast.parse(code)
    return any(
        isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == entry_point for n in tree.body
    )
