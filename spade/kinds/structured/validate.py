"""Validate structured tasks: static checks of the spec, then the reference judged in the sandbox, then
corrupted copies of it, which the tests must mostly catch.

Static: the format (entry_point) is json or yaml; every test's only argument is a well-formed check whose schema
uses only supported keywords; a constraint check expects true. Dynamic (a reference and a pool): the reference
parses and passes every constraint, and reproduces every expected value (drafts take theirs from this run);
then corruptions of it (a key dropped, a type changed, a bound broken, a list item dropped or repeated) run, and
at least MIN_CAUGHT of them must fail some test, and at least one of each of the classes drop_key, change_type and
out_of_range that the document admits (a repeated list item may be harmless, as a duplicate firewall rule is).
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from spade.kinds.structured.corrupt import corruptions
from spade.kinds.structured.execute import reply_of
from spade.kinds.structured.job import FORMATS, MAX_DOCUMENT_CHARS, Reply, judge_job
from spade.kinds.structured.judge.checks import check_problem, is_query
from spade.records import Task, TaskDraft, TestCase
from spade.validate.outcome import Problem, ValidationOutcome

if TYPE_CHECKING:
    from spade.config import GenerationConfig
    from spade.kinds.base import Scorer
    from spade.sandbox.program import ProgramRun

MIN_CAUGHT = 0.6
REQUIRED_CLASSES = ("drop_key", "change_type", "out_of_range")
MAX_CORRUPTIONS = 12
STATIC_ONLY = "static_only: no reference_solution, so nothing was run"


@dataclass(eq=False)
class _Case:
    task: Task
    stated: bool  # expected values given (a task file) to be reproduced, not taken from the run
    problems: list[Problem] = field(default_factory=list)
    data: Any = None
    kill_ratio: float | None = None

    @property
    def checks(self) -> list[Any]:
        return [case.args[0] if len(case.args) == 1 else None for case in self.task.all_tests]


def validate_tasks(tasks: Sequence[Task], pool: Scorer | None, cfg: GenerationConfig) -> list[ValidationOutcome]:
    cases = [_Case(task, stated=True, problems=static_problems(task)) for task in tasks]
    runnable = [c for c in cases if not c.problems and c.task.reference_solution and pool is not None]
    if pool is not None:
        _reference_phase(runnable, pool)
        _corruption_phase([c for c in runnable if not c.problems], pool, cfg)
    return [_outcome(c, ran=c in runnable) for c in cases]


def validate_drafts(drafts: Sequence[TaskDraft], pool: Scorer, cfg: GenerationConfig) -> list[ValidationOutcome]:
    cases = [_Case(_placeholder_task(d), stated=False) for d in drafts]
    for case in cases:
        case.problems = static_problems(case.task, expected_known=False)
    runnable = [c for c in cases if not c.problems]
    _reference_phase(runnable, pool)
    _corruption_phase([c for c in runnable if not c.problems], pool, cfg)
    return [_outcome(c, ran=True) for c in cases]


def _placeholder_task(d: TaskDraft) -> Task:
    return Task(d.task_id, d.description, d.signature, d.entry_point, d.difficulty, d.tags,
                tuple(TestCase(tuple(a), None) for a in d.public_inputs),
                tuple(TestCase(tuple(a), None) for a in d.hidden_inputs),
                d.reference_solution, d.family, dict(d.params), dict(d.provenance), d.kind)


def static_problems(task: Task, *, expected_known: bool = True) -> list[Problem]:
    problems = []
    if task.entry_point not in FORMATS:
        problems.append(Problem("bad_format", f"entry_point = {task.entry_point!r:.40} must name the document "
                                              f"format: {' or '.join(FORMATS)}"))
    if task.reference_solution is not None and len(task.reference_solution) > MAX_DOCUMENT_CHARS:
        problems.append(Problem("reference_too_large", f"reference_solution has {len(task.reference_solution)} "
                                                       f"characters; at most {MAX_DOCUMENT_CHARS} are judged"))
    for k, case in enumerate(task.all_tests):
        where = f"test {k} input[0]"
        if len(case.args) != 1:
            problems.append(Problem("bad_check", f"test {k}: input must hold exactly one check, not {len(case.args)}"))
            continue
        found = check_problem(case.args[0], where)
        if found:
            problems.append(Problem("bad_check", found))
        elif expected_known and not is_query(case.args[0]) and case.expected is not True:
            problems.append(Problem("bad_expected", f"test {k}: a {case.args[0]['op']!r} check expects true, "
                                                    f"not {case.expected!r:.40}"))
    return problems[:5]


def _reference_phase(cases: list[_Case], pool: Scorer) -> None:
    futures = [pool.submit_program(judge_job(c.task.entry_point, c.task.reference_solution or "", c.checks,
                                             echo=True)) for c in cases]
    for case, future in zip(cases, futures):
        reply = reply_of(future.result(), len(case.checks))
        if isinstance(reply, str):
            case.problems.append(Problem("reference_not_judged", reply))
        elif reply.error is not None:
            case.problems.append(Problem("reference_unparseable", f"the reference document is refused: {reply.error}"))
        else:
            _take_values(case, reply)


def _take_values(case: _Case, reply: Reply) -> None:
    tests = case.task.all_tests
    for k, ((kind, value), test) in enumerate(zip(reply.results, tests)):
        if kind == "failed":
            case.problems.append(Problem("reference_fails", f"test {k}: the reference fails its check: {value}"))
        elif case.stated and not _equal(value, test.expected):
            case.problems.append(Problem("expected_mismatch", f"test {k}: expected {test.expected!r:.60}, the "
                                                              f"reference gives {value!r:.60}"))
    if case.problems:
        case.problems = case.problems[:5]
        return
    case.data = reply.data
    if not case.stated:
        values = [value for _, value in reply.results]
        n_public = len(case.task.test_cases)
        case.task = replace(case.task,
                            test_cases=tuple(TestCase(t.args, v) for t, v in zip(case.task.test_cases, values)),
                            hidden_test_cases=tuple(TestCase(t.args, v) for t, v in
                                                    zip(case.task.hidden_test_cases, values[n_public:])))


def _corruption_phase(cases: list[_Case], pool: Scorer, cfg: GenerationConfig) -> None:
    count = min(cfg.max_mutants, MAX_CORRUPTIONS)
    if count == 0:
        return
    jobs: list[tuple[_Case, str, Future[ProgramRun]]] = []
    for case in cases:
        for cls, doc in corruptions(case.data, case.task.task_id, count):
            jobs.append((case, cls, pool.submit_program(judge_job("json", doc, case.checks))))
    tallies: dict[int, dict[str, list[int]]] = {}
    for case, cls, future in jobs:
        caught = _caught(case, reply_of(future.result(), len(case.checks)))
        tally = tallies.setdefault(id(case), {}).setdefault(cls, [0, 0])
        tally[0] += caught
        tally[1] += 1
    for case in cases:
        tally = tallies.get(id(case), {})
        total = sum(n for _, n in tally.values())
        if not total:
            continue
        case.kill_ratio = sum(c for c, _ in tally.values()) / total
        missed = sorted(cls for cls, (c, _) in tally.items() if c == 0 and cls in REQUIRED_CLASSES)
        if case.kill_ratio < MIN_CAUGHT or missed:
            case.problems.append(Problem("weak_tests", f"the tests catch {case.kill_ratio:.2f} of {total} corrupted "
                                                       f"documents (need {MIN_CAUGHT}, and some of each of "
                                                       f"{', '.join(REQUIRED_CLASSES)})"
                                                       + (f"; none of {', '.join(missed)}" if missed else "")))


def _caught(case: _Case, reply: Reply | str) -> bool:
    if isinstance(reply, str) or reply.error is not None:
        return True  # refused or not judged: not a document that passes
    return any(kind == "failed" or not _equal(value, test.expected)
               for (kind, value), test in zip(reply.results, case.task.all_tests))


def _equal(got: Any, expected: Any) -> bool:
    from spade.sandbox.compare import values_equal

    return values_equal(got, expected)


def _outcome(case: _Case, ran: bool) -> ValidationOutcome:
    if case.problems:
        return ValidationOutcome.rejected(case.task.task_id, case.problems, kill_ratio=case.kill_ratio)
    notes = () if ran else (STATIC_ONLY,)
    return ValidationOutcome(True, case.task, notes=notes, task_id=case.task.task_id, kill_ratio=case.kill_ratio)
