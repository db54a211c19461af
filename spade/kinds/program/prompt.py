"""Chat prompts for a program task: a worked example on another problem (examples.py), the statement, the
input/output contract with the rule that only the answer is printed, and the public tests as sample input and
output (never the hidden ones).

In: a `Task` and a variant index. Out: a `Prompt`. The answer is prefilled with the opening fence, as for Python
functions (it helps the embedded model); the phrasings rotate with the candidate index.
"""

from __future__ import annotations

from spade.kinds.base import Prompt, prompt_hash
from spade.kinds.program.examples import WORKED_EXAMPLE
from spade.records import Task, TestCase

ASSISTANT_PREFILL = "```python\n"
MAX_EXAMPLES = 3
MAX_EXAMPLE_CHARS = 400

_SYSTEM = (
    "You are an expert competitive programmer. You write complete Python 3 programs.",
    "You write short, correct Python programs that read standard input and write standard output.",
    "You are a careful assistant who solves programming problems with complete Python programs.",
)
PROMPT_VARIANTS = len(_SYSTEM)


def build_prompt(task: Task, variant: int = 0) -> Prompt:
    v = variant % PROMPT_VARIANTS
    samples = render_samples(task.test_cases)
    user = _USER[v](task, samples)
    messages = ({"role": "system", "content": _SYSTEM[v]}, {"role": "user", "content": user})
    return Prompt(messages=messages, prefill=ASSISTANT_PREFILL, variant=v, hash=prompt_hash(messages, ASSISTANT_PREFILL))


def render_samples(tests: tuple[TestCase, ...]) -> list[tuple[str, str]]:
    """(input, output) of the public tests, short ones only (a long one is left out, not cut)."""
    out = []
    for case in tests:
        stdin = case.args[0] if len(case.args) == 1 and isinstance(case.args[0], str) else None
        if stdin is None or not isinstance(case.expected, str):
            continue
        if len(stdin) + len(case.expected) <= MAX_EXAMPLE_CHARS:
            out.append((stdin, case.expected))
        if len(out) == MAX_EXAMPLES:
            break
    return out


def _block(text: str) -> str:
    return "```\n" + (text if text.endswith("\n") else text + "\n") + "```"


def _samples_text(samples: list[tuple[str, str]]) -> str:
    return "\n\n".join(f"Sample input {i}:\n{_block(i_)}\nSample output {i}:\n{_block(o)}"
                       for i, (i_, o) in enumerate(samples, 1))


# A prompt string given to input() lands in stdout and makes the output wrong; the small model did that often.
NO_PROMPTS = "Call input() with no prompt text. Do not print prompts or labels; print only the answer."


def _io_line(task: Task) -> str:
    match = "exactly" if task.params.get("output_match") == "exact" else "(spacing between values is not checked)"
    return f"Read everything from standard input and print the answer to standard output {match}. {NO_PROMPTS}"


def example_text() -> str:
    """The worked example: its problem, sample and program, in the prompt's own layout."""
    ex = WORKED_EXAMPLE
    return (f"Example problem: {ex.statement}\n\nSample input:\n{_block(ex.stdin)}\nSample output:\n"
            f"{_block(ex.stdout)}\n\nExample program:\n```python\n{ex.program}```")


def _user_statement(task: Task, samples: list[tuple[str, str]]) -> str:
    parts = [example_text(), f"Write a complete Python program for this problem.\n\n{task.description.strip()}",
             _io_line(task)]
    if samples:
        parts.append(_samples_text(samples))
    parts.append("Answer with the whole program in one Python code block.")
    return "\n\n".join(parts)


def _user_terse(task: Task, samples: list[tuple[str, str]]) -> str:
    parts = [example_text(), f"Problem: {task.description.strip()}", _io_line(task)]
    if samples:
        parts.append(_samples_text(samples))
    parts.append("Reply with Python code only.")
    return "\n\n".join(parts)


def _user_judge(task: Task, samples: list[tuple[str, str]]) -> str:
    parts = [example_text(), "Your program will be run on hidden inputs of the same format and judged on its output.",
             task.description.strip(), _io_line(task)]
    if samples:
        parts.append(_samples_text(samples))
    parts.append("Give the full program in a ```python code block; do not print anything else.")
    return "\n\n".join(parts)


_USER = (_user_statement, _user_terse, _user_judge)
