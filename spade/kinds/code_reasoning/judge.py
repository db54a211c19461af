"""Judging code-reasoning answers; an answer's failure is its verdict, never an exception.

- deduction: the predicted value (answer.predicted_value) against the expected output, which validation took from
  running the program in the sandbox; compared by spade.sandbox.compare.values_equal on the host;
- abduction: the proposed arguments (answer.call_arguments), as the Python values written (a tuple stays a tuple),
  are run through the program in the sandbox twice, in fresh processes with different hash seeds; the value must
  equal the shown output both times (any input that produces it is right), and runs that disagree are the task's
  fault (event `task_nondeterministic`), never the solver's credit;
- induction: the function is run on the public and hidden pairs in the sandbox, as a Python function task.
In: (task, answer) pairs and the sandbox pool. Out: one ExecResult each, in order.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from spade.kinds.base import Scorer
from spade.kinds.code_reasoning.answer import call_arguments, predicted_value
from spade.kinds.code_reasoning.prompt import ABDUCTION, INDUCTION, mode_of
from spade.kinds.program.run import executor_config
from spade.kinds.python_function.program import program_job
from spade.pycode import parse_untrusted
from spade.records import PYTHON_FUNCTION, ExecResult, ExecStatus, Task, TestOutcome, TestStatus
from spade.sandbox.compare import values_equal
from spade.sandbox.job import to_json_value
from spade.sandbox.layers import ALT_HASH_SEED
from spade.sandbox.program import ProgramJob, ProgramRun
from spade.validate.types import is_plain

GOT_CHARS = 200
PROBE_TIME_S = 5.0
"""Wall-clock seconds for one run of the task's program on an abduction answer's arguments."""
MAX_RESULT_BYTES = 64 << 10
"""Output of that run read back (what f printed, then the repr of its value); more is an unreadable value."""
RESULT_MARK = "\n\x00spade-value\x00"


def execute(pool: Scorer, items: Sequence[tuple[Task, str]],
            on_done: Callable[[int], None] | None = None) -> list[ExecResult]:
    results: list[ExecResult | None] = [None] * len(items)
    sandboxed: list[tuple[int, tuple[Task, str]]] = []
    probes: list[tuple[int, Task, Any, Any]] = []
    for i, (task, answer) in enumerate(items):
        mode = mode_of(task)
        if mode == INDUCTION:
            sandboxed.append((i, program_job(replace(task, kind=PYTHON_FUNCTION), answer)))
        elif mode == ABDUCTION:
            probe = abduction_probe(task, answer)
            if isinstance(probe, ExecResult):
                results[i] = probe
            else:  # the task's own program on the solver's arguments, twice: two hash seeds, two fresh processes
                ex = executor_config(pool)
                jobs = [ProgramJob(probe, time_limit_s=min(ex.timeout, PROBE_TIME_S), memory_bytes=ex.memory_bytes,
                                   max_output_bytes=MAX_RESULT_BYTES, hash_seed=seed) for seed in (None, ALT_HASH_SEED)]
                probes.append((i, task, *(pool.submit_program(job) for job in jobs)))
        else:
            results[i] = judge_deduction(task, answer)
    for i, result in enumerate(results):
        if result is not None and on_done is not None:
            on_done(i)
    if sandboxed:
        indices = [i for i, _ in sandboxed]
        ran = pool.score_many([job for _, job in sandboxed],
                              on_done=None if on_done is None else (lambda k: on_done(indices[k])))
        for i, result in zip(indices, ran):
            results[i] = result
    for i, task, first, second in probes:
        results[i] = judge_abduction(task, first.result(), second.result())
        if on_done is not None:
            on_done(i)
    return [r if r is not None else unanswered("no verdict") for r in results]


def judge_deduction(task: Task, answer: str) -> ExecResult:
    if not task.test_cases:
        return unanswered("the task has no query")
    ok, value = predicted_value(answer)
    if not ok:
        return unanswered("no Python literal in the answer")
    expected = task.test_cases[0].expected
    if same_output(value, expected):
        return verdict(TestStatus.PASSED)
    return verdict(TestStatus.WRONG_ANSWER, got=_short(value))


def same_output(value: Any, expected: Any) -> bool:
    """Whether a Python value (an answer, what f returned) is the stored output, which validation kept as JSON (a
    set as its sorted list, a tuple as a list): compared in that form, so a set equals a set in any order."""
    try:
        return values_equal(to_json_value(value), expected)
    except (ValueError, TypeError, RecursionError):  # bytes, a dict keyed by tuples: no JSON form, not the output
        return False


def abduction_probe(task: Task, answer: str) -> str | ExecResult:
    """The program the sandbox runs for an abduction answer (the task's program called on the proposed arguments,
    as the Python values the answer wrote: a tuple stays a tuple, a set a set), or the verdict when the answer
    holds no usable arguments."""
    if not task.test_cases or not task.reference_solution:
        return unanswered("the task has no query")
    args = call_arguments(answer, task.entry_point)
    if args is None:
        return unanswered("no call with literal arguments in the answer")
    if not all(is_plain(a) for a in args):
        return verdict(TestStatus.WRONG_ANSWER, got="arguments are not plain values (nested too deep, or text that "
                                                    "is not UTF-8)")
    return (f"{task.reference_solution}\n\n_spade_value = repr({task.entry_point}(*{args!r}))\n"
            f"print({RESULT_MARK!r} + _spade_value, end='')\n")


def judge_abduction(task: Task, first: ProgramRun, second: ProgramRun) -> ExecResult:
    """The solver's arguments are right when the task's program, run on them in two processes with different hash
    seeds, returns the shown output both times. Runs that disagree (or one of them failing) are the task's fault:
    a program that is not a function of its input, never credit for the solver (event `task_nondeterministic`)."""
    a, b = _probe_value(first), _probe_value(second)
    cpu = first.cpu_time_s + second.cpu_time_s
    if a[0] != b[0] or (a[0] == "value" and not values_equal(a[1], b[1])):
        return replace(verdict(TestStatus.WRONG_ANSWER, got="the task's program gave two answers on these "
                               "arguments"), events=("task_nondeterministic",), cpu_time_s=cpu)
    if a[0] != "value":
        return replace(verdict(_FAILED_RUN.get(a[0], TestStatus.UNENCODABLE), got=a[1]), cpu_time_s=cpu)
    status = TestStatus.PASSED if same_output(a[1], task.test_cases[0].expected) else TestStatus.WRONG_ANSWER
    return replace(verdict(status, got=None if status is TestStatus.PASSED else _short(a[1])), cpu_time_s=cpu)


_FAILED_RUN = {"exited": TestStatus.EXCEPTION, "timeout": TestStatus.TIMEOUT, "memory": TestStatus.MEMORY,
               "killed": TestStatus.KILLED, "internal_error": TestStatus.INTERNAL_ERROR}


def _probe_value(run: ProgramRun) -> tuple[str, Any]:
    """("value", what f returned) or (how the run failed, a short reason)."""
    if not run.ok:
        return run.verdict.value, f"the task's program failed on these arguments ({run.verdict.value})"
    text = run.stdout.decode("utf-8", "replace")
    marked = text.rpartition(RESULT_MARK)
    if not marked[1] or run.stdout_bytes > MAX_RESULT_BYTES:
        return "unreadable", "the task's program returned no readable value"
    try:
        tree = parse_untrusted(marked[2])
        node = tree.body[0] if len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr) else None
        if node is not None:
            return "value", ast.literal_eval(node.value)
    except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
        pass
    return "unreadable", "the task's program returned a value that is not a literal"


def verdict(status: TestStatus, got: str | None = None) -> ExecResult:
    overall = ExecStatus.PASSED if status is TestStatus.PASSED else ExecStatus.FAILED
    return ExecResult(overall, (TestOutcome(0, False, status, got=got),), 0.0, 0, 0.0)


def unanswered(why: str) -> ExecResult:
    """A format failure: nothing in the answer could be judged."""
    return ExecResult(ExecStatus.NO_ENTRY_POINT, (TestOutcome(0, False, TestStatus.NOT_RUN),), 0.0, 0, 0.0,
                      load_error=why)


def _short(value: Any) -> str:
    try:
        text = repr(value)
    except (ValueError, RecursionError):  # an int too large for repr
        return "<value>"
    return text[:GOT_CHARS] + ("…" if len(text) > GOT_CHARS else "")
