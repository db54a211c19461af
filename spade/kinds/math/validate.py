"""Validation of math tasks: the expected value is the judge's canonical form of the reference, computed in the
sandbox, and the judge must reject near misses of it (off by one, sign flipped, a set item dropped or added).

In: TaskDrafts from math families, or Tasks from a file (whose stated expected value the reference must match).
Out: one ValidationOutcome each. Task shape: `signature` is the answer form (grammar.FORMS, e.g. "numbers in x"),
one test with no arguments whose expected value is the canonical answer text; no hidden tests.
"""

from __future__ import annotations

from collections.abc import Sequence

from spade.errors import ValidationError
from spade.kinds.base import Scorer
from spade.kinds.math.grammar import MAX_CHARS, parse_form
from spade.kinds.math.run import Request, Verdict, run_requests
from spade.records import Task, TaskDraft, TestCase
from spade.validate.outcome import Problem, ValidationOutcome

MATH = "math"
ENTRY_POINT = "answer"


def static_problems(task: Task) -> list[Problem]:
    """What is wrong with a math task's shape, before anything runs."""
    problems = []
    try:
        parse_form(task.signature)
    except ValueError as exc:
        problems.append(Problem("answer_form", f"signature: {exc}"))
    if len(task.test_cases) != 1 or task.hidden_test_cases:
        problems.append(Problem("tests_shape", f"a math task has one test (input [], expected: the answer); this one "
                                               f"has {len(task.test_cases)} shown and {len(task.hidden_test_cases)} "
                                               "hidden"))
    for case in task.all_tests:
        if case.args != ():
            problems.append(Problem("tests_shape", f"test input {list(case.args)!r:.60} must be [] for a math task"))
        if not isinstance(case.expected, str) or not case.expected.strip() or len(case.expected) > MAX_CHARS:
            problems.append(Problem("tests_shape", f"expected {case.expected!r:.60} must be the answer as text, at "
                                                   f"most {MAX_CHARS} characters, e.g. \"3/4\""))
    return problems


def validate_drafts(drafts: Sequence[TaskDraft], pool: Scorer) -> list[ValidationOutcome]:
    tasks = [Task(task_id=d.task_id, description=d.description, signature=d.signature, entry_point=ENTRY_POINT,
                  difficulty=d.difficulty, tags=d.tags, test_cases=(TestCase((), "?"),),
                  reference_solution=d.reference_solution, family=d.family, params=dict(d.params),
                  provenance=dict(d.provenance), kind=MATH) for d in drafts]
    return _validate(tasks, pool, stated=False)


def validate_tasks(tasks: Sequence[Task], pool: Scorer | None) -> list[ValidationOutcome]:
    if pool is None:
        if any(t.reference_solution for t in tasks):
            raise ValidationError("validating math tasks with a reference_solution needs a SandboxPool")
        return [ValidationOutcome.rejected(t.task_id, problems) if (problems := static_problems(t)) else
                ValidationOutcome(True, t, notes=("static_only: no reference_solution, so nothing was run",),
                                  task_id=t.task_id) for t in tasks]
    return _validate(list(tasks), pool, stated=True)


def _validate(tasks: list[Task], pool: Scorer, *, stated: bool) -> list[ValidationOutcome]:
    """Canonicalise each task's source of truth (the reference, else the stated expected value), then check the
    judge agrees with itself, with the reference and with any stated value, and rejects near misses."""
    problems: list[list[Problem]] = [static_problems(t) for t in tasks]
    live = [i for i, p in enumerate(problems) if not p]
    sources = {i: tasks[i].reference_solution or tasks[i].test_cases[0].expected for i in live}
    canon = dict(zip(live, run_requests(pool, [Request("canon", tasks[i].signature, sources[i]) for i in live])))
    checks: list[tuple[int, Request, str]] = []  # (task index, request, what a sound judge says: ok / not ok)
    for i, verdict in canon.items():
        task = tasks[i]
        if verdict.status != "ok":
            which = "reference_solution" if task.reference_solution else "expected value"
            detail = f"the {which} {_short(sources[i])} was not accepted by the judge: {verdict.detail}"
            problems[i].append(Problem(f"reference_{verdict.status}", detail))
            continue
        form = task.signature
        checks.append((i, Request("judge", form, verdict.canon, verdict.canon), "ok"))
        if stated and task.reference_solution:
            checks.append((i, Request("judge", form, task.test_cases[0].expected, verdict.canon), "ok"))
        checks += [(i, Request("judge", form, miss, verdict.canon), "not ok") for miss in verdict.wrong]
    for (i, request, want), verdict in zip(checks, run_requests(pool, [c[1] for c in checks])):
        if (verdict.status == "ok") != (want == "ok"):
            problems[i].append(_check_problem(request, want, verdict))
    outcomes = []
    for i, task in enumerate(tasks):
        if problems[i]:
            outcomes.append(ValidationOutcome.rejected(task.task_id, problems[i][:1] + [
                p for p in problems[i][1:] if p.code != problems[i][0].code]))
            continue
        expected = canon[i].canon
        kept = task if stated else Task(**{**_fields(task), "test_cases": (TestCase((), expected),)})
        outcomes.append(ValidationOutcome(True, kept, task_id=task.task_id))
    return outcomes


def _check_problem(request: Request, want: str, verdict: Verdict) -> Problem:
    if want == "ok" and request.text == request.expected:
        return Problem("canonical_unstable", f"the canonical form {_short(request.text)} is not judged equal to "
                                             f"itself ({verdict.status}: {verdict.detail})")
    if want == "ok":
        return Problem("expected_mismatch", f"the stated expected value {_short(request.text)} is not the reference's "
                                            f"answer {_short(request.expected)} ({verdict.status}: {verdict.detail})")
    return Problem("judge_accepts_wrong", f"the near miss {_short(request.text)} is judged equal to "
                                          f"{_short(request.expected)}")


def _fields(task: Task) -> dict:
    return {name: getattr(task, name) for name in Task.__dataclass_fields__}


def _short(text: str) -> str:
    return repr(text) if len(text) <= 60 else repr(text[:57] + "...")
