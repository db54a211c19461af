"""The answer in a math completion: the last \\boxed{...}, else the last line starting "Answer:", else a completion
that is one short line. The prompt asks for a last line "Answer: ..." and prefills "Answer: " (PREFILL), so a
completion that continues the prefill reads as that line; \\boxed{} (the usual habit of math models) is accepted
too. Out: the answer text ('' when there is none: a format failure). Linear in the completion's length.
"""

from __future__ import annotations

import re

from spade.kinds.math.grammar import MAX_CHARS

BOXED = "\\boxed{"
PREFILL = "Answer: "
_ANSWER_LINE = re.compile(r"^[\s*#>_-]*(?:the\s+)?(?:final\s+)?answer[\s*_]*(?:is)?[\s*_]*[:=]?[\s*_]*(.*?)[\s*_]*$",
                          re.IGNORECASE)


def extract_answer(completion: str, *, prefilled: bool = False) -> str:
    """The final answer's text, at most MAX_CHARS + 1 characters (longer ones are refused by the judge's bound).
    `prefilled`: the completion continues PREFILL (a chat server that cannot prefill writes its own answer line,
    which, being the last, wins)."""
    text = (PREFILL if prefilled else "") + completion.replace("\r\n", "\n")
    found = _last_boxed(text)
    if found is None:
        found = _answer_line(text)
    if found is None:
        single = text.strip()
        found = single if single and "\n" not in single and len(single) <= 80 else ""
    return found.strip()[: MAX_CHARS + 1]


def _last_boxed(text: str) -> str | None:
    start = text.rfind(BOXED)
    if start < 0:
        return None
    depth, i = 1, start + len(BOXED)
    for j in range(i, len(text)):
        c = text[j]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return text[i:j]
    return ""  # unclosed: the output was cut short, and no other line is taken for the answer


def _answer_line(text: str) -> str | None:
    for line in reversed(text.split("\n")):
        if len(line) > 4 * MAX_CHARS or "answer" not in line.lower():
            continue  # a line that long holds no answer within bounds, and the pattern's cost stays linear
        m = _ANSWER_LINE.match(line)
        again = _ANSWER_LINE.match(m.group(1)) if m else None  # "Answer: Answer: 3/4" after the prefill
        if again and again.group(1).strip():
            m = again
        if m and m.group(1).strip():
            return m.group(1)
    return None
