"""The answer in a math completion. The prompt prefills "Answer: " (PREFILL), so with the prefill the completion's
first line is the answer the model committed to: it wins when it is a well-formed answer of the task's form (later
lines are the model's chatter: measured, the embedded 135M model follows "7" with "The answer is -7, which is a
fraction..." and the last-line rule judged that). Otherwise (no prefill, or a server that cannot prefill and works
first): the last \\boxed{...}, else the last line starting "Answer:", else a completion that is one short line.
For a single value (forms number and constant), an equation chain "1 + 1 = 2" is read as its last side, the result
it states, and a number may be followed by up to three words ("6 ways."); the judge then checks that value like any
other. Out: the answer text ('' when there is none: a format
failure). Linear in the completion's length.
"""

from __future__ import annotations

import re

from spade.kinds.math.grammar import MAX_CHARS, Form, Refused, form_problem, parse_answer
from spade.untrusted import MAX_COMPLETION_BYTES, clip_ends

BOXED = "\\boxed{"
PREFILL = "Answer: "
_ANSWER_LINE = re.compile(r"^[\s*#>_-]*(?:the\s+)?(?:final\s+)?answer[\s*_]*(?:is)?[\s*_]*[:=]?[\s*_]*(.*?)[\s*_]*$",
                          re.IGNORECASE)
_VALUE_FORMS = ("number", "constant")  # one value and no variables, so an '=' can only join sides of a computation
_TRAILING_WORDS = re.compile(r"^(.*?\d)\s+[A-Za-z]+(?:\s+[A-Za-z]+){0,2}\s*\.?$")  # "12 ways." (a count's unit)


def extract_answer(completion: str, *, prefilled: bool = False, form: Form | None = None) -> str:
    """The final answer's text, at most MAX_CHARS + 1 characters (longer ones are refused by the judge's bound).
    `prefilled`: the completion continues PREFILL. `form`: the task's answer form (None: no line is parsed, and
    the first line after the prefill never wins on its own)."""
    text = (PREFILL if prefilled else "") + clip_ends(completion, MAX_COMPLETION_BYTES).replace("\r\n", "\n")
    found = _prefill_line(text, form) if prefilled and form is not None else None
    if found is None:
        found = _last_boxed(text)
    if found is None:
        found = _answer_line(text)
    if found is None:
        single = text.strip()
        found = single if single and "\n" not in single and len(single) <= 80 else ""
    found = found.strip()[: MAX_CHARS + 1]
    return _stated_result(found, form) if form is not None else found


def _prefill_line(text: str, form: Form) -> str | None:
    """The first line's answer when it is one of `form` (an equation chain counting by its result), else None."""
    line = text.split("\n", 1)[0]
    if len(line) > 4 * MAX_CHARS:
        return None
    m = _ANSWER_LINE.match(line)
    again = _ANSWER_LINE.match(m.group(1)) if m else None  # "Answer: Answer: 3/4"
    if again and again.group(1).strip():
        m = again
    answer = m.group(1).strip() if m else ""
    return answer if answer and _well_formed(_stated_result(answer, form), form) else None


def _stated_result(answer: str, form: Form) -> str:
    """"3 * 4 = 12 ways" -> "12" for a single value when every side is in the grammar; any other answer unchanged."""
    if form.name not in _VALUE_FORMS:
        return answer
    unit = _TRAILING_WORDS.match(answer) if len(answer) <= MAX_CHARS else None
    if unit and _parses(unit.group(1).split("=")[-1], Form("constant")):
        answer = unit.group(1)
    if "=" not in answer:
        return answer
    sides = answer.split("=")
    if all(_parses(side, Form("constant")) for side in sides):
        return sides[-1].strip()
    return answer


def _parses(text: str, form: Form) -> bool:
    try:
        parse_answer(text, form)
    except Refused:
        return False
    return True


def _well_formed(answer: str, form: Form) -> bool:
    try:
        nodes = parse_answer(answer, form)
    except Refused:
        return False
    return bool(nodes) and all(form_problem(node, form) is None for node in nodes)


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
