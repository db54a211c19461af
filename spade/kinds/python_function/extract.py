"""A forgiving code extractor for model completions.

In: the completion text (by default it continues after the prefilled opening fence) and the entry point.
Out: the Python source to run, or '' when there is no usable code (scored as a format failure, not an error).
Handles fenced or bare code, empty fences, prose before and after, several blocks, and truncated output.
Bounded on the host: the completion is clipped to MAX_COMPLETION_BYTES, at most MAX_STARTS starts per segment are
tried, and one extraction parses at most a `ParseBudget` of spans (spade.pycode.longest_parse).
"""

from __future__ import annotations

import ast
import re
import textwrap

from spade.kinds.python_function.prompt import ASSISTANT_PREFILL
from spade.pycode import ParseBudget, longest_parse
from spade.untrusted import MAX_COMPLETION_BYTES, clip

FENCE = "```"
_LANG_TAG = re.compile(r"^[A-Za-z0-9_+.-]*\s*$")
_CODE_START = re.compile(r"^(def |async def |class |import |from \S+ import |@)")
# Top-level statements worth keeping: definitions and module constants. Example calls, prints and asserts the
# model adds after its function are dropped: they decide nothing and a wrong assert would fail a right function.
_KEPT = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign)
MAX_STARTS = 8  # code-looking lines tried as the start of a segment's code: a real answer's is among the first


def extract_code(completion: str, entry_point: str | None = None, *, prefilled: bool = True) -> str:
    """The code to run from `completion`; '' when none is usable.

    `prefilled`: the prompt ended with the opening fence, so the completion starts inside a code block.
    Among several blocks, the first that defines `entry_point` wins; else the first that defines anything.
    """
    text = (ASSISTANT_PREFILL if prefilled else "") + clip(completion, MAX_COMPLETION_BYTES).replace("\r\n", "\n")
    budget = ParseBudget()
    first: str = ""
    segments = text.split(FENCE)
    fenced_first = segments[1::2] + segments[0::2]  # fenced segments before bare ones
    for segment in fenced_first:
        if budget.left <= 0:
            break
        found = _code_in(_strip_lang_tag(segment), budget)
        if found is None:
            continue
        code, tree = found
        if _defines(tree, entry_point):
            return code
        first = first or code
    return first


def _strip_lang_tag(segment: str) -> str:
    first, _, rest = segment.partition("\n")
    return rest if _LANG_TAG.match(first) else segment


def _code_in(segment: str, budget: ParseBudget) -> tuple[str, ast.Module] | None:
    """The longest parseable run of lines starting at the segment's top or at a code-looking line, with the tree
    of the definitions kept; None when there is none."""
    lines = textwrap.dedent(segment).split("\n")
    starts = [0] + [i for i, line in enumerate(lines) if i > 0 and _CODE_START.match(line)][:MAX_STARTS - 1]
    for start in starts:
        found = longest_parse(lines, start, budget)
        if found is None:
            continue
        code = _definitions_only(*found)
        if code:
            return code, found[1]
    return None


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


def _defines(tree: ast.Module, entry_point: str | None) -> bool:
    if entry_point is None:
        return True
    return any(
        isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == entry_point for n in tree.body
    )
