"""The program in a model completion: the first fenced block (or, without fences, the first code-looking run of
lines) that parses as Python, kept whole: a program's top-level statements are the program.

In: the completion (by default it continues after the prefilled opening fence and the task's starter lines). Out: the source, or '' when no
usable code is there (a format failure). Prose around the code, several blocks, language tags and output cut off
mid-line (the longest parseable prefix is kept) are handled.
"""

from __future__ import annotations

import ast
import re
import textwrap

from spade.kinds.program.prompt import ASSISTANT_PREFILL
from spade.pycode import parse_untrusted

FENCE = "```"
_LANG_TAG = re.compile(r"^[A-Za-z0-9_+.-]*\s*$")
_CODE_START = re.compile(r"^(import |from \S+ import |def |class |for |while |if |with |print\(|[A-Za-z_][\w, ]*=[^=])")


def extract_program(completion: str, *, prefilled: bool = True, starter: str = "") -> str:
    """The program to run from `completion`; '' when there is none. `starter`: lines the prompt prefilled after
    the fence (a task's params.starter), part of the program when `prefilled`."""
    text = (ASSISTANT_PREFILL + starter if prefilled else "") + completion.replace("\r\n", "\n")
    segments = text.split(FENCE)
    for segment in segments[1::2]:  # fenced blocks first, in order
        code = _longest_program(textwrap.dedent(_strip_lang_tag(segment)).split("\n"), 0)
        if code:
            return code
    for segment in segments[0::2]:  # then bare code between prose
        lines = textwrap.dedent(segment).split("\n")
        for start in (i for i, line in enumerate(lines) if _CODE_START.match(line)):
            code = _longest_program(lines, start)
            if code:
                return code
    return ""


def _strip_lang_tag(segment: str) -> str:
    first, _, rest = segment.partition("\n")
    return rest if _LANG_TAG.match(first) else segment


def _longest_program(lines: list[str], start: int) -> str:
    """The longest run of lines from `start` that parses and does something (not just a docstring)."""
    for end in range(len(lines), start, -1):
        chunk = "\n".join(lines[start:end]).strip("\n")
        if not chunk.strip():
            continue
        try:
            tree = parse_untrusted(chunk)
        except SyntaxError:
            continue
        if any(not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)) for node in tree.body):
            return chunk + "\n"
        return ""
    return ""
