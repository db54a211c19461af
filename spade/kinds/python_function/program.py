"""What the sandbox runs for a Python function answer: the answer after the imports and helpers of a converted
task's original prompt; for a task graded by its own `check(candidate)` (provenance['check']), two runs: the answer
on every test input (`answers_job`), then, in a fresh process holding only the prompt's helpers, the check and the
answer's values (`check_job`), so an answer cannot redefine a helper the check uses or patch a module it calls.

In: a Task and the extracted answer. Out: the (task, program) pair the pool scores. Procedural and file tasks carry
neither prompt nor check: their answer runs unchanged.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from spade.kinds.program.run import executor_config
from spade.pycode import parse_untrusted
from spade.records import ExecResult, ExecStatus, Task, TestOutcome, TestStatus
from spade.sandbox.program import ProgramJob, ProgramRun

if TYPE_CHECKING:
    from spade.kinds.base import Scorer

ANSWERS_MARK = "\n\x00spade-answers\x00"
CHECK_PASSED = "\n\x00spade-check-passed\x00"
MAX_ANSWERS_BYTES = 1 << 20
"""Output of a check-graded answer's first run read back (what it printed, then its values); more fails it."""


def program_job(task: Task, answer: str) -> tuple[Task, str]:
    """The (task, program) the sandbox grades for `answer`."""
    return task, with_preamble(task, answer)  # by value; a check-graded task is graded by execute_with_checks


def check_graded(task: Task) -> bool:
    """Whether `task` is graded by its own `check(candidate)` (provenance['check']) rather than by value."""
    return isinstance(task.provenance.get("check"), str)


def answers_job(task: Task, code: str, time_limit_s: float, memory_bytes: int) -> ProgramJob:
    """The first of a check-graded task's two runs: the candidate (after the prompt's preamble) on every input of the
    task's tests, which hold every input the check passes, printing the repr of what it returned to each."""
    inputs = [list(t.args) for t in task.all_tests]
    program = (f"{with_preamble(task, code)}\n\n"
               f"_spade_values = [repr({task.entry_point}(*_spade_args)) for _spade_args in {inputs!r}]\n"
               f"print({ANSWERS_MARK!r} + repr(_spade_values), end='')\n")
    return ProgramJob(program, time_limit_s=time_limit_s, memory_bytes=memory_bytes, max_output_bytes=MAX_ANSWERS_BYTES)


def read_answers(task: Task, run: ProgramRun) -> list[Any] | str:
    """What the candidate returned on each test's input, read back as literals on the host; or why not."""
    if not run.ok:
        return f"the answer did not run to the end ({run.verdict.value}, exit code {run.exit_code})"
    text = run.stdout.decode("utf-8", "replace").rpartition(ANSWERS_MARK)[2]
    if ANSWERS_MARK not in run.stdout.decode("utf-8", "replace") or run.stdout_bytes > MAX_ANSWERS_BYTES:
        return "the answer's values could not be read back"
    try:
        reprs = ast.literal_eval(_expression(text))
        values = [ast.literal_eval(_expression(r)) for r in reprs]
    except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
        return "the answer returned a value that is not a literal"
    if len(values) != len(task.all_tests):
        return "the answer's values could not be read back"
    return values


def check_job(task: Task, values: list[Any], time_limit_s: float, memory_bytes: int) -> ProgramJob:
    """The second run, in a process the candidate never ran in: the prompt's own helpers, the task's check, and a
    candidate that answers each input with the value the candidate returned to it (read back and re-written as
    literals by the host), so the check cannot be redefined or its modules patched by the answer."""
    answers = {repr(list(t.args)): v for t, v in zip(task.all_tests, values)}
    program = (f"{preamble(task)}\n\n{task.provenance['check']}\n\n"
               "import copy as _spade_copy\n"
               f"_spade_answers = {answers!r}\n\n"
               f"def {task.entry_point}(*args):\n"
               "    return _spade_copy.deepcopy(_spade_answers[repr(list(args))])\n\n"
               "import random as _spade_random\n"
               "_spade_random.seed(0)\n"
               f"check({task.entry_point})\n"
               f"print({CHECK_PASSED!r}, end='')\n")
    return ProgramJob(program, time_limit_s=time_limit_s, memory_bytes=memory_bytes, max_output_bytes=4096)


def check_verdict(run: ProgramRun | str) -> ExecResult:
    """The verdict of a check-graded answer: passed when its check ran to the end in the second process."""
    if isinstance(run, ProgramRun) and run.ok and run.stdout.decode("utf-8", "replace").endswith(CHECK_PASSED):
        outcome = TestOutcome(0, False, TestStatus.PASSED)
        return ExecResult(ExecStatus.PASSED, (outcome,), run.cpu_time_s, run.peak_memory_kb, run.wall_time_s)
    why = run if isinstance(run, str) else "the task's check failed on the answer's values"
    outcome = TestOutcome(0, False, TestStatus.WRONG_ANSWER, error=why)
    cpu = run.cpu_time_s if isinstance(run, ProgramRun) else 0.0
    return ExecResult(ExecStatus.FAILED, (outcome,), cpu, 0, 0.0)


def _expression(text: str) -> ast.expr:
    tree = parse_untrusted(text)
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr):
        raise ValueError("not one expression")
    return tree.body[0].value


def with_preamble(task: Task, code: str) -> str:
    """`code` after the imports and helper functions of a converted task's original prompt.

    HumanEval prompts import names the signature uses (List, Tuple) and some define helpers the solution
    calls; a model that writes only the function needs them. Tasks without a prompt get `code` unchanged.
    """
    prompt = task.provenance.get("prompt")
    if not code.strip() or not isinstance(prompt, str) or code.startswith(prompt):  # a body continuing the prompt
        return code
    kept = preamble(task)
    return f"{kept}\n{code}" if kept else code


def preamble(task: Task) -> str:
    """The imports and helper functions of a converted task's original prompt ('' when it has none)."""
    prompt = task.provenance.get("prompt")
    if not isinstance(prompt, str):
        return ""
    try:
        tree = parse_untrusted(prompt)
    except SyntaxError:
        return ""
    return "\n".join(ast.get_source_segment(prompt, n) or "" for n in tree.body
                     if not (isinstance(n, ast.FunctionDef) and n.name == task.entry_point))


def defines(code: str, name: str) -> bool:
    """Whether `code` parses and defines function `name` at its top level."""
    try:
        tree = parse_untrusted(code)
    except SyntaxError:
        return False
    return any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name for n in tree.body)


def execute_with_checks(pool: Scorer, items: Sequence[tuple[Task, str]], checked: Sequence[int],
                        on_done: Callable[[int], None] | None = None) -> list[ExecResult]:
    """Grade `items`, the check-graded ones (their indices: `checked`) in two runs each, the others by value."""
    ex = executor_config(pool)
    limit, memory = min(600.0, ex.timeout * 2), ex.memory_bytes
    results: list[ExecResult | None] = [None] * len(items)
    first = {i: pool.submit_program(answers_job(items[i][0], items[i][1], limit, memory)) for i in checked}
    rest = [i for i in range(len(items)) if i not in first]
    if rest:
        scored = pool.score_many([program_job(*items[i]) for i in rest],
                                 on_done=None if on_done is None else (lambda k: on_done(rest[k])))
        for i, result in zip(rest, scored):
            results[i] = result
    second: dict[int, Any] = {}
    for i, future in first.items():
        values = read_answers(items[i][0], future.result())
        second[i] = values if isinstance(values, str) else pool.submit_program(check_job(items[i][0], values, limit,
                                                                                         memory))
    for i, run in second.items():
        results[i] = check_verdict(run if isinstance(run, str) else run.result())
        if on_done is not None:
            on_done(i)
    return [r for r in results if r is not None]
