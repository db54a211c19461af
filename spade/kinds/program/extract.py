"""The program in a model completion: the first fenced block (or, without fences, the first code-looking run of
lines) that parses as Python, kept whole: a program's top-level statements are the program.

In: the completion (by default it continues after the prefilled opening fence and the task's starter lines). Out: the source, or '' when no
usable code is there (a format failure). Prose around the code, several blocks, language tags and output cut off
mid-line (the longest parseable prefix is kept) are handled. Bounded on the host: the completion is clipped to
MAX_COMPLETION_BYTES, at most MAX_STARTS code-looking lines are tried as a start, and one extraction parses at most
a `ParseBudget` of spans.
"""

from __future__ import annotations

import ast
import re
import textwrap

from spade.kinds.program.prompt import ASSISTANT_PREFILL
from spade.pycode import ParseBudget, longest_parse
from spade.untrusted import MAX_COMPLETION_BYTES, clip

FENCE = "```"
_LANG_TAG = re.compile(r"^[A-Za-z0-9_+.-]*\s*$")
_CODE_START = re.compile(r"^(import |from \S+ import |def |class |for |while |if |with |print\(|[A-Za-z_][\w, ]*=[^=])")
MAX_STARTS = 8  # code-looking lines tried as where bare code starts: a real answer's is among the first


def extract_program(completion: str, *, prefilled: bool = True, starter: str = "") -> str:
    """The program to run from `completion`; '' when there is none. `starter`: lines the prompt prefilled after
    the fence (a task's params.starter), part of the program when `prefilled`."""
    completion = clip(completion, MAX_COMPLETION_BYTES).replace("\r\n", "\n")
    text = (ASSISTANT_PREFILL + starter if prefilled else "") + completion
    budget = ParseBudget()
    segments = text.split(FENCE)
    for segment in segments[1::2]:  # fenced blocks first, in order
        code = _longest_program(textwrap.dedent(_strip_lang_tag(segment)).split("\n"), 0, budget)
        if code or budget.left <= 0:
            return code
    for segment in segments[0::2]:  # then bare code between prose
        lines = textwrap.dedent(segment).split("\n")
        starts = [i for i, line in enumerate(lines) if _CODE_START.match(line)][:MAX_STARTS]
        for start in starts:
            code = _longest_program(lines, start, budget)
            if code or budget.left <= 0:
                return code
    return ""


def _strip_lang_tag(segment: str) -> str:
    first, _, rest = segment.partition("\n")
    return rest if _LANG_TAG.match(first) else segment


def _longest_program(lines: list[str], start: int, budget: ParseBudget) -> str:
    """The longest run of lines from `start` that parses and does something (not just a docstring)."""
    while start < len(lines) and not lines[start].strip():  # blank lines around the code are not part of it
        start += 1
    end = len(lines)
    while end > start and not lines[end - 1].strip():
        end -= 1
    found = longest_parse(lines[:end], start, budget)
    if found is None:
        return ""
    chunk, tree = found
    if any(not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)) for node in tree.body):
        return chunk.strip("\n") + "\n"
    return ""
