"""Validation of SQL tasks by running the reference query in the sandbox (run.py) on every test's database.

In: Tasks from a file (their stated expected results must be reproduced) or a family's drafts (their expected
results are what the reference returns). Out: one ValidationOutcome each. A task is sound when every database
spec is well formed; the reference is one query that runs without error on every database and returns the same
rows again on a copy of each database holding its rows in reverse order (`nondeterministic` otherwise;
`ambiguous_order` when the question asks for an order and ties then come out otherwise); its result is not empty
everywhere (`trivial_result`) nor the same everywhere (`same_result_everywhere`: a hard-coded answer would pass);
and the tests tell wrong queries apart (mutants.py): the dropped WHERE / HAVING clause always, and at least
KILL_SHARE of generation.mutant_kill_ratio of the other mutants that run (`weak_tests`). All of a task's runs are
one sandbox job, submitted before any is collected.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from spade.config import GenerationConfig
from spade.errors import ValidationError
from spade.kinds.base import Scorer
from spade.kinds.sql import run
from spade.kinds.sql.compare import row_key, same_result
from spade.kinds.sql.mutants import DROP_CLAUSE, sql_mutants
from spade.kinds.sql.spec import result_problem, spec_problem
from spade.records import Task, TaskDraft, TestCase
from spade.validate.outcome import Problem, ValidationOutcome

KILL_SHARE = 0.7
"""SQL mutants are more often equivalent on small data than Python ones: the bar is this share of the config's."""
_BAD_REFERENCE = {"error": "reference_raises", "refused": "reference_refused", "timeout": "reference_timeout",
                  "memory": "reference_memory", "too_large": "reference_too_large", "not_run": "reference_timeout",
                  "internal_error": "reference_internal_error"}


def validate_drafts(drafts: Sequence[TaskDraft], pool: Scorer, cfg: GenerationConfig) -> list[ValidationOutcome]:
    tasks = [Task(d.task_id, d.description, d.signature, d.entry_point, d.difficulty, d.tags,
                  test_cases=tuple(TestCase(a, None) for a in d.public_inputs),
                  hidden_test_cases=tuple(TestCase(a, None) for a in d.hidden_inputs),
                  reference_solution=d.reference_solution, family=d.family, params=dict(d.params),
                  provenance=dict(d.provenance), kind=d.kind) for d in drafts]
    return _check(tasks, pool, cfg, stated=False)


def validate_tasks(tasks: Sequence[Task], pool: Scorer | None, cfg: GenerationConfig) -> list[ValidationOutcome]:
    if pool is None and any(t.reference_solution for t in tasks):
        raise ValidationError("validating SQL tasks needs a SandboxPool: some have a reference_solution to run")
    return _check(tasks, pool, cfg, stated=True)


def static_problems(task: Task, stated: bool) -> list[Problem]:
    problems = []
    for k, case in enumerate(task.all_tests):
        where = f"test {k} input"
        if len(case.args) != 1:
            problems.append(Problem("bad_database", f"{where} must be [database spec], one argument"))
        elif (p := spec_problem(case.args[0], where)) is not None:
            problems.append(p)
        if stated and (p := result_problem(case.expected, f"test {k} expected")) is not None:
            problems.append(p)
    if "ordered" in task.params and type(task.params["ordered"]) is not bool:
        problems.append(Problem("bad_params", f"params.ordered = {task.params['ordered']!r:.40} must be true or false"))
    if task.reference_solution is not None and not task.reference_solution.strip():
        problems.append(Problem("no_reference", "reference_solution is empty; give one SQLite SELECT statement"))
    return problems[:3]


def _check(tasks: Sequence[Task], pool: Scorer | None, cfg: GenerationConfig, stated: bool) -> list[ValidationOutcome]:
    pending: list = []
    for task in tasks:
        problems = static_problems(task, stated)
        if problems:
            pending.append(ValidationOutcome.rejected(task.task_id, problems))
        elif task.reference_solution is None:
            pending.append(ValidationOutcome(True, task, notes=("static_only: no reference_solution to run",),
                                             task_id=task.task_id))
        else:
            if pool is None:
                raise ValidationError("validating SQL tasks needs a SandboxPool to run the reference")
            mutants = sql_mutants(task.reference_solution, min(cfg.max_mutants, 16))
            queries = [task.reference_solution, task.reference_solution, *(m for _, m in mutants)]
            future = run.submit(pool, queries, [c.args[0] for c in task.all_tests], reverse=(1,))
            pending.append((task, mutants, future))
    return [p if isinstance(p, ValidationOutcome) else _judge(*p, cfg, stated) for p in pending]


def _judge(task: Task, mutants: list[tuple[str, str]], future, cfg: GenerationConfig,
           stated: bool) -> ValidationOutcome:
    n = len(task.all_tests)
    runs, _ = run.read_runs(future.result(), 2 + len(mutants), n)
    first, second = runs[0], runs[1]
    if first.refused:
        return ValidationOutcome.rejected(task.task_id, [Problem("reference_refused", first.refused)])
    for k, r in enumerate(first.results):
        if r.status != "ok" or r.result is None:
            return ValidationOutcome.rejected(task.task_id, [Problem(
                _BAD_REFERENCE.get(r.status, "reference_raises"), f"the reference on test {k}: {r.status} {r.error}")])
    results = [r.result for r in first.results if r.result is not None]
    ordered = bool(task.params.get("ordered", False))
    if second.refused or any(r.result is None or not same_result(a, r.result, False)
                             for r, a in zip(second.results, results)):
        return ValidationOutcome.rejected(task.task_id, [Problem(
            "nondeterministic", "the reference returned other rows on a second run, on the same database with its "
                                "rows stored in reverse order: random(), or LIMIT without a total ORDER BY?")])
    if ordered and any(_keys(r.result) != _keys(a) for r, a in zip(second.results, results) if r.result is not None):
        return ValidationOutcome.rejected(task.task_id, [Problem(
            "ambiguous_order", "params.ordered is true but the reference's ORDER BY leaves ties in another order "
                               "on a second run; add tie-breaking columns (and say so in the question)")])
    problems = []
    if not any(res["rows"] for res in results):
        problems.append(Problem("trivial_result", "the reference returns no rows on any test; give databases "
                                                  "where the answer is not empty"))
    elif n > 1 and len({str(_keys(res)) for res in results}) == 1:
        problems.append(Problem("same_result_everywhere", "the reference returns the same rows on every test, so a "
                                                          "hard-coded answer would pass; vary the databases"))
    if stated:
        wrong = [k for k, (c, res) in enumerate(zip(task.all_tests, results))
                 if not same_result(c.expected, res, ordered)]
        if wrong:
            problems.append(Problem("expected_mismatch", f"the reference's result on test {wrong[0]} is not the "
                                                         f"stated expected value ({len(wrong)} tests differ)"))
    ran, killed, missed = 0, 0, []
    for (kind, text), mutant in zip(mutants, runs[2:]):
        if mutant.refused or not any(r.status in ("ok", "timeout", "memory", "too_large") for r in mutant.results):
            continue  # does not run anywhere (a broken query), so it says nothing about the tests
        ran += 1
        if any(r.result is None or not same_result(res, r.result, ordered) for r, res in zip(mutant.results, results)):
            killed += 1
        else:
            missed.append((kind, text))
    ratio = killed / ran if ran else None
    required = [text for kind, text in missed if kind in DROP_CLAUSE]
    if required:
        problems.append(Problem("weak_tests", f"no test tells the reference from {required[0][:160]!r}"))
    elif ratio is not None and ratio < KILL_SHARE * cfg.mutant_kill_ratio:
        problems.append(Problem("weak_tests", f"the tests catch {killed} of {ran} wrong queries (need "
                                              f"{KILL_SHARE * cfg.mutant_kill_ratio:.2f}); one missed: "
                                              f"{missed[0][1][:160]!r}"))
    if problems:
        return ValidationOutcome.rejected(task.task_id, problems, kill_ratio=ratio)
    cases = [TestCase(c.args, res) for c, res in zip(task.all_tests, results)]
    public = len(task.test_cases)
    done = replace(task, test_cases=tuple(cases[:public]), hidden_test_cases=tuple(cases[public:]))
    return ValidationOutcome(True, done, task_id=task.task_id, kill_ratio=ratio)


def _keys(result: dict) -> list[str]:
    return [row_key(row) for row in result["rows"]]
