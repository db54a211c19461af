"""Chat prompts for a program task: worked examples on other problems (examples.py) as earlier exchanges (each
problem asked in the same words, its program as the answer), then the task's statement, the input/output contract
with the rule that only the answer is printed, and the public tests as sample input and output (never the hidden
ones).

In: a `Task` and a variant index. Out: a `Prompt`. The answer is prefilled with the opening fence, as for Python
functions (it helps the embedded model), then the task's `params.starter` when it has one (easy one-line tasks:
a line that reads the input); the phrasings rotate with the candidate index.
"""

from __future__ import annotations

from spade.kinds.base import Prompt, prompt_hash
from spade.kinds.program.examples import examples_for
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
    user = _USER[v](task, render_samples(task.test_cases))
    messages: tuple[dict[str, str], ...] = ({"role": "system", "content": _SYSTEM[v]},)
    for ex in examples_for(v):
        example = Task("example", ex.statement, "", "", 0.0, test_cases=(TestCase((ex.stdin,), ex.stdout),),
                       kind="program")
        messages += ({"role": "user", "content": _USER[v](example, render_samples(example.test_cases))},
                     {"role": "assistant", "content": f"{ASSISTANT_PREFILL}{ex.program}```"})
    messages += ({"role": "user", "content": user},)
    prefill = ASSISTANT_PREFILL + task_starter(task)
    return Prompt(messages=messages, prefill=prefill, variant=v, hash=prompt_hash(messages, prefill))


def task_starter(task: Task) -> str:
    """The first lines of the answer the task has prefilled after the fence ('' for none)."""
    starter = task.params.get("starter", "")
    return starter if isinstance(starter, str) else ""


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
NO_PROMPTS = "Call input() with no prompt text. Print only what the sample output shows: no prompts, labels or sentences."


def _io_line(task: Task) -> str:
    match = "exactly" if task.params.get("output_match") == "exact" else "(spacing between values is not checked)"
    return f"Read everything from standard input and print the answer to standard output {match}. {NO_PROMPTS}"


def _user_statement(task: Task, samples: list[tuple[str, str]]) -> str:
    parts = [f"Write a complete Python program for this problem.\n\n{task.description.strip()}",
             _io_line(task)]
    if samples:
        parts.append(_samples_text(samples))
    parts.append("Answer with the whole program in one Python code block.")
    return "\n\n".join(parts)


def _user_terse(task: Task, samples: list[tuple[str, str]]) -> str:
    parts = [f"Problem: {task.description.strip()}", _io_line(task)]
    if samples:
        parts.append(_samples_text(samples))
    parts.append("Reply with Python code only.")
    return "\n\n".join(parts)


def _user_judge(task: Task, samples: list[tuple[str, str]]) -> str:
    parts = ["Your program will be run on hidden inputs of the same format and judged on its output.",
             task.description.strip(), _io_line(task)]
    if samples:
        parts.append(_samples_text(samples))
    parts.append("Give the full program in a ```python code block; do not print anything else.")
    return "\n\n".join(parts)


_USER = (_user_statement, _user_terse, _user_judge)
