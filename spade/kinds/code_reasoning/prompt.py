"""Chat prompts for the three code-reasoning modes, short enough for the embedded 135M model.

- deduction: the program and a call; the answer prefilled as `assert f(args) == ` and ended with the line;
- abduction: the program and an output; the answer prefilled as `assert f(` (the model writes the arguments);
  both answers are one line outside any code fence, as a math answer is;
- induction: a short description and the public input/output pairs; the answer is the function (as for Python
  function tasks), judged on hidden pairs.
In: a Task (params['mode'] names its mode) and a variant. Out: a `Prompt`. One worked example on another function
comes first, as an earlier exchange, so the small model sees the answer's shape; the hidden pairs and, in
abduction, the input that made the output are never shown.
"""

from __future__ import annotations

from spade.kinds.base import Prompt, prompt_hash
from spade.kinds.python_function.prompt import render_examples
from spade.records import Task

DEDUCTION, ABDUCTION, INDUCTION = "deduction", "abduction", "induction"
MODES = (DEDUCTION, ABDUCTION, INDUCTION)
OPEN = "```python\n"

_SYSTEM = (
    "You are an expert Python programmer. You read code carefully and answer exactly.",
    "You reason step by step about what Python code computes, and answer with one line of Python.",
)
PROMPT_VARIANTS = len(_SYSTEM)

_EXAMPLE_PROGRAM = "def f(xs):\n    return [x * 2 for x in xs if x > 0]\n"


def mode_of(task: Task) -> str:
    mode = task.params.get("mode")
    return mode if mode in MODES else DEDUCTION


def call_text(entry_point: str, args: tuple) -> str:
    return f"{entry_point}({', '.join(repr(a) for a in args)})"


def build_prompt(task: Task, variant: int = 0) -> Prompt:
    v = variant % PROMPT_VARIANTS
    mode = mode_of(task)
    system = {"role": "system", "content": _SYSTEM[v]}
    if mode == INDUCTION:
        examples = "\n".join(render_examples(task.entry_point, task.test_cases))
        user = (f"{task.description.strip()}\n\nWrite the Python function `{task.signature}` so that:\n"
                f"{examples}\n\nAnswer with the function in one ```python block.")
        shown_pairs: tuple[dict[str, str], ...] = (system, {"role": "user", "content": user})
        return Prompt(shown_pairs, OPEN, v, prompt_hash(shown_pairs, OPEN), stop="code")
    query = task.test_cases[0] if task.test_cases else None
    args = tuple(query.args) if query is not None else ()
    if mode == DEDUCTION:
        ask, shown = _deduction_user, f"assert {call_text(task.entry_point, args)} == "
        example = (_deduction_user(_EXAMPLE_PROGRAM, "f", "f([3, -1, 5])"), "assert f([3, -1, 5]) == [6, 10]")
        user = ask(task.reference_solution or "", task.entry_point, call_text(task.entry_point, args))
    else:
        shown = f"assert {task.entry_point}("
        example = (_abduction_user(_EXAMPLE_PROGRAM, "f", [4, 2]), "assert f([2, -7, 1]) == [4, 2]")
        user = _abduction_user(task.reference_solution or "", task.entry_point, query.expected if query else None)
    messages = (system, {"role": "user", "content": example[0]}, {"role": "assistant", "content": example[1]},
                {"role": "user", "content": user})
    return Prompt(messages, shown, v, prompt_hash(messages, shown), stop="line")


def _deduction_user(program: str, entry_point: str, call: str) -> str:
    return (f"{OPEN}{program.rstrip()}\n```\nWhat does `{call}` return? Complete the assertion with the exact "
            "value.")


def _abduction_user(program: str, entry_point: str, output: object) -> str:
    return (f"{OPEN}{program.rstrip()}\n```\nGive arguments for which `{entry_point}` returns {output!r}. Complete "
            "the assertion.")
