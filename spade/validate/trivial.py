"""The trivial wrong answers a task's tests must catch, as mutants of every Python function reference.

In: a task (its entry point and tests) and the reference's values on those tests. Out: sources of functions that
return one of their arguments unchanged (one per argument the tests pass), and, when the tests expect more than one
value, one returning the first expected value. A transpose task whose tests are all symmetric matrices, or a
reference with no mutable operator at all, is then still measured: echoing the input passes and is caught as weak.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import Any

from spade.records import Task

MAX_CONSTANT_CHARS = 4_000


def trivial_programs(task: Task, values: Sequence[Any]) -> list[str]:
    """Function sources under the task's entry point; none for a check-graded problem (one test, True)."""
    if "check" in task.provenance or not task.entry_point.isidentifier():
        return []
    arities = {len(t.args) for t in task.all_tests}
    head = f"def {task.entry_point}(*args, **kwargs):\n    return "
    out = [f"{head}args[{i}]\n" for i in range(min(arities, default=0))]
    constant = repr(values[0]) if len(values) > 1 else ""
    if constant and len(constant) <= MAX_CONSTANT_CHARS and _literal(constant):
        out.append(f"{head}{constant}\n")
    return out


def _literal(text: str) -> bool:
    """Whether `text` reads back as a Python literal (repr of inf or nan does not)."""
    try:
        ast.literal_eval(text)
    except (ValueError, SyntaxError, RecursionError, MemoryError):
        return False
    return True
