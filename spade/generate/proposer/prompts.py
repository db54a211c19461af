"""Chat prompts that ask a model for a new task, at a target difficulty, shown k example tasks from the store.

In: the mode (spec or code_first), the difficulty, a topic hint and example Tasks. Out: chat messages, in which
each example is a finished earlier exchange (user asks, assistant answers in the wanted format): small models
copy a format they have seen far more reliably than one they were only told about.
"""

from __future__ import annotations

import ast
import hashlib
import json
from collections.abc import Sequence

from spade.records import Task

TOPICS = (
    "strings", "lists of integers", "arithmetic", "dictionaries", "sorting", "counting", "searching",
    "number theory", "text processing", "nested lists", "prefix sums", "intervals", "parsing digits",
    "sets of values", "simulation", "two pointers",
)
MAX_EXAMPLE_INPUTS = 4

_SYSTEM = {
    "code_first": "You write small, self-contained Python programming exercises.",
    "spec": "You design Python programming tasks and answer with one JSON object only.",
}


def proposer_messages(mode: str, difficulty: float, topic: str, examples: Sequence[Task]) -> tuple[dict[str, str], ...]:
    """System message, one user/assistant pair per usable example, then the request for a new task."""
    messages = [{"role": "system", "content": _SYSTEM[mode]}]
    for task in examples:
        answer = render_example(task, mode)
        if answer:
            messages.append({"role": "user", "content": _ask(mode, task.difficulty, _topic_of(task))})
            messages.append({"role": "assistant", "content": answer})
    messages.append({"role": "user", "content": _ask(mode, difficulty, topic)})
    return tuple(messages)


def prompt_hash(messages: Sequence[dict[str, str]]) -> str:
    canonical = json.dumps(list(messages), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def _ask(mode: str, difficulty: float, topic: str) -> str:
    level = "easy" if difficulty < 0.35 else "medium" if difficulty < 0.7 else "hard"
    head = f"Write a new {level} Python exercise (difficulty {difficulty:.2f} of 1) about {topic}."
    if mode == "spec":
        return (f"{head}\nAnswer with one JSON object with the keys: \"description\" (the task, in words), "
                "\"signature\" (one `def` line with type hints), \"reference\" (a correct Python solution defining "
                "that function), \"inputs\" (a list of 5 argument lists) and \"expected\" (the return value for "
                "each input).")
    return (f"{head}\nReply with one Python code block: one function with type hints whose docstring states the "
            "task, followed by 4 example calls, one per line, like print(name(arguments)).")


def render_example(task: Task, mode: str) -> str:
    """The answer a good proposer would have given for `task`; '' when the task has no usable reference."""
    func = _reference_function(task)
    if func is None:
        return ""
    inputs = [list(t.args) for t in task.test_cases + task.hidden_test_cases][:MAX_EXAMPLE_INPUTS]
    if mode == "spec":
        expected = [t.expected for t in task.test_cases + task.hidden_test_cases][:MAX_EXAMPLE_INPUTS]
        obj = {"description": task.description, "signature": task.signature, "reference": task.reference_solution,
               "inputs": inputs, "expected": expected}
        return json.dumps(obj, ensure_ascii=False)
    module = ast.parse(task.reference_solution or "")
    # Helpers and imports of the reference stay; only the entry point gains the description as its docstring.
    module.body = [_with_docstring(n, task.description) if isinstance(n, ast.FunctionDef) and n.name == func.name
                   else n for n in module.body]
    documented = ast.unparse(ast.fix_missing_locations(module))
    calls = "\n".join(f"print({task.entry_point}({', '.join(repr(a) for a in args)}))" for args in inputs)
    return f"```python\n{documented}\n\n{calls}\n```"


def _reference_function(task: Task) -> ast.FunctionDef | None:
    if not task.reference_solution:
        return None
    try:
        module = ast.parse(task.reference_solution)
    except SyntaxError:
        return None
    funcs = [n for n in module.body if isinstance(n, ast.FunctionDef) and n.name == task.entry_point]
    return funcs[0] if funcs else None


def _with_docstring(func: ast.FunctionDef, description: str) -> ast.FunctionDef:
    body = list(func.body)
    if ast.get_docstring(func) is not None:
        body = body[1:]
    doc = ast.Expr(ast.Constant(" ".join(description.split())))
    return ast.FunctionDef(name=func.name, args=func.args, body=[doc, *body], decorator_list=func.decorator_list,
                           returns=func.returns, type_comment=None, type_params=[], lineno=1, col_offset=0)


def _topic_of(task: Task) -> str:
    return task.tags[0] if task.tags else (task.family or "a small algorithm")
