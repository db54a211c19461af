"""Validation of repair tasks: the original is validated as a Python function task, then the bug is run.

In: repair TaskDrafts (a family's: the reference, inputs and candidate bugs in params) or repair Tasks (from a
file: `params.buggy_code`), a sandbox pool and the GenerationConfig. Out: one ValidationOutcome each. The
reference gives every expected value and must pass the Python function validator (determinism, mutant-killing
tests). The buggy code then runs in the sandbox under the grading limits and must fail at least one public test
(shown to the policy with what the buggy code did, `params.failing_test`) and at least one hidden test (so an
answer that only special-cases the shown tests still fails). A draft's candidate bugs run under the mutant
phase's tight limits and only those that return or raise on every test can be kept (a looping bug would cost a
time limit per answer); the kept one's share of failed tests is nearest its `target_fail_share`, after swapping
one public and one hidden test where that makes a candidate showable. A file's tests are kept as given.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from spade.config import GenerationConfig
from spade.errors import ValidationError
from spade.kinds.base import Scorer
from spade.kinds.python_function import KIND as PYTHON
from spade.kinds.python_function.program import defines, program_job
from spade.kinds.repair.name import REPAIR
from spade.pycode import parse_untrusted
from spade.records import (
    PYTHON_FUNCTION,
    ExecResult,
    ExecStatus,
    Task,
    TaskDraft,
    TestOutcome,
    TestStatus,
)
from spade.validate.outcome import Problem, ValidationOutcome

MAX_BUGGY_CHARS = 20_000
# A bug is shown by what the buggy code did on a test; a verdict that says nothing about the code (it never
# loaded, the sandbox failed) is not a bug to show.
RAN = frozenset({ExecStatus.FAILED, ExecStatus.TIMEOUT})
SHOWABLE = frozenset({TestStatus.WRONG_ANSWER, TestStatus.EXCEPTION, TestStatus.TIMEOUT, TestStatus.MEMORY})
# A draft's candidate bugs run under the mutant phase's tight limits; one is kept only if every test ended in one of
# these, which no time limit changes, so the grading path sees the same failures (no looping or crashing bugs).
DETERMINED = frozenset({TestStatus.PASSED, TestStatus.WRONG_ANSWER, TestStatus.EXCEPTION})


@dataclass(frozen=True, slots=True)
class Showing:
    """A task's tests arranged for a bug: the task (tests possibly reordered), the public test shown and what the
    buggy code did on it, and the share of all tests it fails."""

    task: Task
    index: int
    did: str
    fail_share: float


def validate_drafts(drafts: Sequence[TaskDraft], pool: Scorer, cfg: GenerationConfig) -> list[ValidationOutcome]:
    candidates = [_candidates(d.params) for d in drafts]
    base = PYTHON.validate_drafts([replace(d, kind=PYTHON_FUNCTION) for d in drafts], pool, cfg)
    runs = _run_all(pool, [(o.task, c) for o, c in zip(base, candidates) if o.accepted and o.task is not None], cfg)
    out: list[ValidationOutcome] = []
    for d, outcome, cands in zip(drafts, base, candidates):
        if not outcome.accepted or outcome.task is None:
            out.append(outcome)
            continue
        results = runs.pop(0)
        out.append(_choose(outcome, cands, results, float(d.params.get("target_fail_share", 1.0))))
    return out


def validate_tasks(tasks: Sequence[Task], pool: Scorer | None, cfg: GenerationConfig) -> list[ValidationOutcome]:
    out: list[ValidationOutcome | None] = [None] * len(tasks)
    runnable = []
    for i, t in enumerate(tasks):
        problems = static_problems(t)
        if problems:
            out[i] = ValidationOutcome.rejected(t.task_id, problems)
        else:
            runnable.append(i)
    if runnable and pool is None:
        raise ValidationError("validating repair tasks needs a SandboxPool: their buggy code must be run")
    base = PYTHON.validate([replace(tasks[i], kind=PYTHON_FUNCTION) for i in runnable], pool, cfg) if runnable else []
    ok = [(i, o) for i, o in zip(runnable, base) if o.accepted and o.task is not None]
    for i, o in zip(runnable, base):
        if not o.accepted:
            out[i] = o
    runs = _run_all(pool, [(o.task, [str(tasks[i].params["buggy_code"])]) for i, o in ok])  # type: ignore[misc]
    for (i, o), results in zip(ok, runs):
        out[i] = _check_file_task(tasks[i], o, results[0])
    return [o for o in out if o is not None]


def static_problems(task: Task) -> list[Problem]:
    """What is wrong with a repair task before anything runs: its reference, buggy code and shown test."""
    buggy = task.params.get("buggy_code")
    if not task.reference_solution:
        return [Problem("no_reference", "a repair task needs reference_solution: the fixed function, which gives "
                        "every expected value")]
    if not isinstance(buggy, str) or not buggy.strip():
        return [Problem("no_buggy_code", "a repair task needs params.buggy_code: the function with the bug(s), as a "
                        "string of Python code")]
    if len(buggy) > MAX_BUGGY_CHARS:
        return [Problem("buggy_code_too_long", f"params.buggy_code has {len(buggy)} characters; at most "
                        f"{MAX_BUGGY_CHARS}")]
    if not defines(buggy, task.entry_point):
        return [Problem("buggy_code_invalid", f"params.buggy_code does not parse or does not define "
                        f"{task.entry_point}(); it must be the task's function with the bug(s) in it")]
    if _same_code(buggy, task.reference_solution):
        return [Problem("bug_is_reference", "params.buggy_code is the reference_solution itself; put a bug in it")]
    bugs = task.params.get("bugs", 1)
    if type(bugs) is not int or not 1 <= bugs <= 10:
        return [Problem("bad_bug_count", f"params.bugs = {bugs!r:.40} must be the number of bugs, an integer in "
                        "[1, 10]")]
    if task.params.get("show_bug_lines") and not _lines_of(task.params.get("bug_lines"), buggy):
        return [Problem("bad_bug_lines", f"params.show_bug_lines is set but params.bug_lines = "
                        f"{task.params.get('bug_lines')!r:.40} is not a non-empty list of line numbers of "
                        "params.buggy_code")]
    return []


def _lines_of(lines: Any, code: str) -> bool:
    n = len(code.splitlines())
    return isinstance(lines, list) and bool(lines) and all(type(x) is int and 1 <= x <= n for x in lines)


def _same_code(a: str, b: str) -> bool:
    try:
        return ast.unparse(parse_untrusted(a)) == ast.unparse(parse_untrusted(b))
    except (SyntaxError, ValueError, RecursionError):
        return False


def _candidates(params: dict[str, Any]) -> list[str]:
    return [str(c["code"]) for c in params.get("candidates", [])
            if isinstance(c, dict) and isinstance(c.get("code"), str)]


def _run_all(pool: Scorer | None, pairs: list[tuple[Task, list[str]]],
             cfg: GenerationConfig | None = None) -> list[list[ExecResult]]:
    """Every (task, buggy code) run in one batch, results grouped per task: under the grading path's limits, or with
    `cfg` under the mutant phase's tight ones (a draft's candidates: a bug that needs more is not kept)."""
    items = [(task, code) for task, codes in pairs for code in codes]
    if not items:
        return []
    assert pool is not None  # callers with runnable tasks checked it
    if cfg is None:
        flat = PYTHON.execute(pool, items)
    else:
        limits = [(max(cfg.mutant_time_limit_s, 20 * (task.reference_cpu_s or 0.0)),) * len(task.all_tests)
                  for task, _ in items]
        flat = pool.score_many([program_job(task, code) for task, code in items], time_limits=limits)
    grouped, at = [], 0
    for _, codes in pairs:
        grouped.append(flat[at:at + len(codes)])
        at += len(codes)
    return grouped


def _choose(outcome: ValidationOutcome, codes: list[str], results: list[ExecResult],
            target: float) -> ValidationOutcome:
    task = outcome.task
    assert task is not None
    options = []
    for k, (code, result) in enumerate(zip(codes, results)):
        if any(t.status not in DETERMINED for t in result.tests):
            continue  # its verdict could change under the grading path's limits
        showing = arrange(task, result)
        if showing is not None:
            options.append((abs(showing.fail_share - target), k, code, showing))
    if not options:
        return ValidationOutcome.rejected(task.task_id, [Problem(
            "bug_not_caught", f"none of the {len(codes)} candidate bugs fails both a public and a hidden test while "
            "returning or raising on every test within the mutant time limit")],
            outcome.kill_ratio)
    _, k, code, showing = min(options, key=lambda o: (o[0], o[1]))
    chosen = next(c for c in task.params["candidates"] if c.get("code") == code)
    params = {key: v for key, v in showing.task.params.items() if key != "candidates"}
    params.update(buggy_code=code, bug_kinds=list(chosen.get("kinds", [])), bug_lines=list(chosen.get("lines", [])),
                  failing_test={"index": showing.index, "did": showing.did}, fail_share=round(showing.fail_share, 4))
    repaired = replace(showing.task, kind=REPAIR, params=params)
    return ValidationOutcome(True, repaired, task_id=repaired.task_id, kill_ratio=outcome.kill_ratio)


def arrange(task: Task, result: ExecResult) -> Showing | None:
    """The task with a shown public test the bug fails and a hidden test it fails, swapping one public and one
    hidden test if that is needed and enough; None when no swap makes both hold, or the bug does not run."""
    if result.status not in RAN:
        return None
    tests, outcomes = list(task.all_tests), list(result.tests)
    n_public = len(task.test_cases)
    failed = [k for k, o in enumerate(outcomes) if o.status is not TestStatus.PASSED]
    shown = shown_index(outcomes[:n_public])
    if shown is None:
        showable = [k for k in failed if k >= n_public and outcomes[k].status in SHOWABLE]
        if showable and n_public:
            _swap(tests, outcomes, n_public - 1, showable[0])
    elif not any(k >= n_public for k in failed):
        others = [k for k in failed if k < n_public and k != shown]
        if others and n_public < len(tests):
            _swap(tests, outcomes, others[-1], n_public)
    index = shown_index(outcomes[:n_public])
    if index is None or all(o.status is TestStatus.PASSED for o in outcomes[n_public:]):
        return None
    task = replace(task, test_cases=tuple(tests[:n_public]), hidden_test_cases=tuple(tests[n_public:]))
    return Showing(task, index, what_it_did(outcomes[index]), len(failed) / len(tests))


def shown_index(public: Sequence[TestOutcome]) -> int | None:
    """The public test to show: the first with a wrong answer, else the first that raised, ran out of time or of
    memory; None when the bug fails no public test in a way worth showing."""
    wrong = [k for k, o in enumerate(public) if o.status is TestStatus.WRONG_ANSWER]
    other = [k for k, o in enumerate(public) if o.status in SHOWABLE]
    return (wrong or other or [None])[0]


def _swap(tests: list[Any], outcomes: list[TestOutcome], a: int, b: int) -> None:
    tests[a], tests[b] = tests[b], tests[a]
    outcomes[a], outcomes[b] = outcomes[b], outcomes[a]


def what_it_did(o: TestOutcome) -> str:
    """What the buggy code did on a failed test, as the end of a sentence ("…, but it returned 7")."""
    if o.status is TestStatus.WRONG_ANSWER:
        return f"returned {o.got}"
    if o.status is TestStatus.EXCEPTION:
        return f"raised {o.error or 'an exception'}"
    if o.status is TestStatus.TIMEOUT:
        return "did not finish within the time limit"
    if o.status is TestStatus.MEMORY:
        return "ran out of memory"
    return f"failed ({o.status.value})"


def _check_file_task(original: Task, outcome: ValidationOutcome, result: ExecResult) -> ValidationOutcome:
    task = outcome.task
    assert task is not None
    n_public = len(task.test_cases)
    public = result.tests[:n_public]
    failed_hidden = [o for o in result.tests[n_public:] if o.status is not TestStatus.PASSED]
    index = shown_index(public)
    problems = []
    if result.status is ExecStatus.PASSED:
        problems.append(Problem("bug_not_caught", "params.buggy_code passes every test: it is not a bug the tests "
                                "can see; inject one the tests catch"))
    elif result.status not in RAN:
        problems.append(Problem("buggy_code_does_not_run", f"params.buggy_code ends as {result.status.value} "
                                f"({(result.load_error or 'no error text')[:80]}), not with a wrong answer, an "
                                "exception or a timeout on some test; the bug must be in what the function does"))
    elif index is None:
        problems.append(Problem("bug_not_shown", "params.buggy_code fails no public test with a wrong answer, an "
                                "exception or a timeout, so no failing test can be shown; make a public test one "
                                "it fails"))
    elif not failed_hidden:
        problems.append(Problem("bug_hidden_pass", "params.buggy_code passes every hidden test, so an answer that "
                                "special-cases the shown tests would pass; add a hidden test it fails"))
    shown = original.params.get("failing_test")
    if not problems and shown is not None:
        problems += _shown_problems(shown, public)
    if problems:
        return ValidationOutcome.rejected(task.task_id, problems, outcome.kill_ratio)
    assert index is not None
    failing = shown if shown is not None else {"index": index, "did": what_it_did(public[index])}
    fail_share = sum(o.status is not TestStatus.PASSED for o in result.tests) / len(result.tests)
    params = {**task.params, "failing_test": failing, "fail_share": round(fail_share, 4)}
    return replace(outcome, task=replace(task, kind=REPAIR, params=params))


def _shown_problems(shown: Any, public: Sequence[TestOutcome]) -> list[Problem]:
    index = shown.get("index") if isinstance(shown, dict) else None
    if type(index) is not int or not 0 <= index < len(public) or public[index].status not in SHOWABLE:
        return [Problem("failing_test_mismatch", f"params.failing_test = {shown!r:.60} must name (by 'index') a "
                        "public test the buggy code fails; leave it out to have it computed")]
    did = what_it_did(public[index])
    if shown.get("did") != did:
        return [Problem("failing_test_mismatch", f"params.failing_test.did = {shown.get('did')!r:.60}, but the buggy "
                        f"code {did:.60}; leave it out to have it computed")]
    return []
