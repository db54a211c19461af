"""Chat prompts for a Python function task: description, signature and the public tests as examples (never the
hidden ones).

In: a `Task` and a variant index. Out: a `Prompt` (chat messages, the assistant prefill, a short stable hash).
Variants are rotated by candidate index so one unlucky phrasing cannot sink a whole task.
"""

from __future__ import annotations

from spade.kinds.base import Prompt, prompt_hash
from spade.records import Task, TestCase

# Prefilling only the opening fence measurably helps the embedded model; prefilling the signature hurts it.
ASSISTANT_PREFILL = "```python\n"
FENCE_CLOSE = "\n```"
MAX_EXAMPLES = 5
MAX_EXAMPLE_CHARS = 300

_SYSTEM = (
    "You are an expert Python programmer.",
    "You write correct, simple Python functions.",
    "You are a careful assistant who solves programming problems in Python.",
)


PROMPT_VARIANTS = len(_SYSTEM)


def variant_for(candidate_index: int) -> int:
    """The prompt variant of the i-th candidate of a task (round robin)."""
    return candidate_index % PROMPT_VARIANTS


def build_prompt(task: Task, variant: int = 0) -> Prompt:
    """The prompt for `task` in phrasing `variant` (taken modulo the number of variants)."""
    v = variant % PROMPT_VARIANTS
    examples = render_examples(task.entry_point, task.test_cases)
    user = _USER_BUILDERS[v](task, examples)
    messages = ({"role": "system", "content": _SYSTEM[v]}, {"role": "user", "content": user})
    return Prompt(messages=messages, prefill=ASSISTANT_PREFILL, variant=v, hash=prompt_hash(messages, ASSISTANT_PREFILL),
                  stop="code")


def render_examples(entry_point: str, tests: tuple[TestCase, ...]) -> list[str]:
    """Public tests as `entry(args...) == expected` lines; overly long ones are left out, not truncated."""
    lines: list[str] = []
    for case in tests:
        line = f"{entry_point}({', '.join(repr(a) for a in case.args)}) == {case.expected!r}"
        if len(line) <= MAX_EXAMPLE_CHARS:
            lines.append(line)
        if len(lines) == MAX_EXAMPLES:
            break
    return lines


def _examples_block(examples: list[str]) -> str:
    return "\n".join(examples)


def _user_plain(task: Task, examples: list[str]) -> str:
    parts = [f"Write a Python function for this task.\n\n{task.description.strip()}",
             f"Use this signature:\n{task.signature.strip()}"]
    if examples:
        parts.append(f"Examples:\n{_examples_block(examples)}")
    parts.append("Answer with the complete function in one Python code block.")
    return "\n\n".join(parts)


def _user_spec(task: Task, examples: list[str]) -> str:
    parts = [f"Task: {task.description.strip()}", f"Function: `{task.signature.strip()}`"]
    if examples:
        parts.append("It must satisfy:\n" + "\n".join(f"- `{e}`" for e in examples))
    parts.append(f"Implement `{task.entry_point}` in Python. Reply with code only.")
    return "\n\n".join(parts)


def _user_asserts(task: Task, examples: list[str]) -> str:
    parts = [f"Implement the following Python function.\n\n{task.signature.strip()}\n    # {_one_line(task.description)}"]
    if examples:
        parts.append("These assertions must pass:\n" + "\n".join(f"assert {e}" for e in examples))
    parts.append("Give the full implementation in a ```python code block.")
    return "\n\n".join(parts)


def _one_line(text: str) -> str:
    return " ".join(text.split())


_USER_BUILDERS = (_user_plain, _user_spec, _user_asserts)
