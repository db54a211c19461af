"""Chat prompts for a repair task: what the function should do, the buggy function, the public tests as examples
of the intended behaviour, and the one the buggy code fails with what it returned instead (never a hidden test).

In: a repair `Task` (params `buggy_code`, `bugs`, `failing_test`; `bug_lines` when `show_bug_lines`) and a variant
index. Out: a `Prompt` whose
prefill opens a Python block, as Python function prompts do.
"""

from __future__ import annotations

from typing import Any

from spade.kinds.base import Prompt, prompt_hash
from spade.kinds.python_function.prompt import ASSISTANT_PREFILL, render_examples
from spade.records import Task

_SYSTEM = (
    "You are an expert Python programmer who fixes bugs.",
    "You debug Python functions carefully and return correct code.",
    "You are a careful assistant who repairs broken Python code.",
)
PROMPT_VARIANTS = len(_SYSTEM)


def build_prompt(task: Task, variant: int = 0) -> Prompt:
    v = variant % PROMPT_VARIANTS
    messages = ({"role": "system", "content": _SYSTEM[v]}, {"role": "user", "content": user_message(task, v)})
    return Prompt(messages=messages, prefill=ASSISTANT_PREFILL, variant=v,
                  hash=prompt_hash(messages, ASSISTANT_PREFILL), stop="code")


def user_message(task: Task, variant: int = 0) -> str:
    bugs = task.params.get("bugs", 1)
    count = "a bug" if bugs == 1 else f"{bugs} bugs"
    parts = [f"This Python function should do the following:\n\n{task.description.strip()}",
             f"It has {count}{_where(task)}:\n\n```python\n{str(task.params.get('buggy_code', '')).strip()}\n```"]
    examples = render_examples(task.entry_point, task.test_cases)
    if examples:
        parts.append("The correct function satisfies:\n" + "\n".join(examples))
    failing = failing_test_line(task)
    if failing:
        parts.append(failing)
    parts.append(("Return the corrected function in one Python code block.",
                  "Reply with the fixed function only, in a ```python code block.",
                  "Give the complete corrected function in a ```python code block.")[variant % PROMPT_VARIANTS])
    return "\n\n".join(parts)


def failing_test_line(task: Task) -> str:
    """The shown failing test as a sentence: its call, the expected value, and what the buggy code did."""
    shown: Any = task.params.get("failing_test")
    if not isinstance(shown, dict) or not isinstance(shown.get("index"), int):
        return ""
    i = shown["index"]
    if not 0 <= i < len(task.test_cases):
        return ""
    case = task.test_cases[i]
    call = f"{task.entry_point}({', '.join(repr(a) for a in case.args)})"
    return f"The buggy code fails this test: {call} should return {case.expected!r}, but it {shown.get('did', '')}."


def _where(task: Task) -> str:
    """' on line 3' / ' on lines 2 and 5' when the task shows where its bugs are (the easiest repairs do)."""
    lines = task.params.get("bug_lines")
    if not task.params.get("show_bug_lines") or not isinstance(lines, list) or not lines:
        return ""
    if len(lines) == 1:
        return f" on line {lines[0]}"
    return " on lines " + ", ".join(map(str, lines[:-1])) + f" and {lines[-1]}"
