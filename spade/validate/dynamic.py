"""Dynamic validation: run the reference in the sandbox, take expected values from it, and check the tests bite.

In: TaskDrafts (from families) or Tasks (from files), a SandboxPool and the GenerationConfig. Out: one
ValidationOutcome each. The reference must return JSON values of its annotated type on every input, the same
on two separate runs; expected values come only from that execution. Then mutants of the reference run, with
the trivial wrong answers (a function echoing an argument, one returning a constant: spade.validate.trivial), and
at least `mutant_kill_ratio` of those that load must fail a test; a task with none to run is rejected (no_mutants),
never passed for want of evidence. Before a task is rejected as weak_tests, probe inputs are tried once (see
_probe_phase): a generated draft's family is asked for them and they join its tests; any other task gets small
edits of its own inputs (spade.validate.probes), which only mark the survivors that act like the reference on
every probe as equivalent. Every phase submits all its jobs to the pool before collecting any.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import replace
from typing import Any

from spade.config import GenerationConfig
from spade.errors import ValidationError
from spade.records import Task, TaskDraft, TestCase
from spade.registry import FAMILIES
from spade.sandbox import Job, OutcomeKind, RawRun, SandboxPool, to_json_value, values_equal
from spade.sandbox.layers import ALT_HASH_SEED
from spade.validate.case import (
    Case,
    adopt_probes,
    asks_family,
    draft_case,
    finish,
    mutant_limit,
    public_count,
    weak,
)
from spade.validate.mutants import mutants
from spade.validate.outcome import Problem, ValidationOutcome
from spade.validate.probes import MIN_PROBES, argument_probes
from spade.validate.static import check_draft, check_task, parse_signature
from spade.validate.trivial import trivial_programs
from spade.validate.types import fits, is_json, parse_annotation

_BAD_KIND = {
    OutcomeKind.EXCEPTION: "reference_raises", OutcomeKind.TIMEOUT: "reference_timeout",
    OutcomeKind.MEMORY: "reference_memory", OutcomeKind.KILLED: "reference_killed",
    OutcomeKind.UNENCODABLE: "reference_unencodable", OutcomeKind.NOT_RUN: "reference_not_run",
    OutcomeKind.INTERNAL_ERROR: "reference_internal_error",
}


def validate_drafts(drafts: Sequence[TaskDraft], pool: SandboxPool, cfg: GenerationConfig) -> list[ValidationOutcome]:
    """Validate generated drafts; accepted ones come back as Tasks with expected values and reference_cpu_s."""
    cases: list[Case | ValidationOutcome] = []
    for d in drafts:
        problems = check_draft(d) or _split_problems(d, cfg)
        cases.append(ValidationOutcome.rejected(d.task_id, problems) if problems else draft_case(d, cfg))
    return _run_phases(cases, pool, cfg)


def validate_tasks(tasks: Sequence[Task], pool: SandboxPool | None, cfg: GenerationConfig) -> list[ValidationOutcome]:
    """Validate tasks from a file: static checks, and with a reference, that it reproduces the stated expected values.

    `pool` may be None only when no task carries a reference_solution (nothing runs then)."""
    if pool is None and any(t.reference_solution for t in tasks):
        raise ValidationError("validate_tasks needs a SandboxPool: some tasks have a reference_solution to run")
    cases: list[Case | ValidationOutcome] = []
    for t in tasks:
        problems = check_task(t)
        if problems:
            cases.append(ValidationOutcome.rejected(t.task_id, problems))
        elif t.reference_solution is None:
            cases.append(ValidationOutcome(True, t, notes=("static_only: no reference_solution, so nothing was run",),
                                           task_id=t.task_id))
        else:
            cases.append(Case(t, [c.expected for c in t.all_tests]))
    return _run_phases(cases, pool, cfg)


def _split_problems(d: TaskDraft, cfg: GenerationConfig) -> list[Problem]:
    """A draft whose inputs leave no shown test once the hidden share is kept (one input under the default
    min_hidden_share 0.5) is refused here: a task without shown tests cannot be stored or read back."""
    if d.all_inputs and public_count(d, cfg) == 0:
        return [Problem("too_few_inputs", f"{len(d.all_inputs)} input(s) leave no shown test after "
                                          f"min_hidden_share = {cfg.min_hidden_share}; give at least 2 inputs")]
    return []


def _run_phases(items: list[Case | ValidationOutcome], pool: Any, cfg: GenerationConfig) -> list[ValidationOutcome]:
    cases = [c for c in items if isinstance(c, Case)]
    _reference_phase(cases, pool, cfg)
    _mutant_phase([c for c in cases if not c.problems], pool, cfg)
    weak_cases = [c for c in cases if not c.problems and weak(c, cfg) and cfg.probe_inputs]
    _probe_phase([c for c in weak_cases if asks_family(c)], pool, cfg)
    _equivalence_phase([c for c in weak_cases if not asks_family(c)], pool, cfg)
    return [item if isinstance(item, ValidationOutcome) else finish(item, cfg, need_mutants=True) for item in items]


def _reference_phase(cases: list[Case], pool: SandboxPool, cfg: GenerationConfig) -> None:
    # The second run is on a worker with another str hash seed: an answer that depends on set order differs.
    futures = [(_submit(pool, c.reference, c, c.inputs, cfg.reference_time_limit_s), _submit(
        pool, c.reference, c, c.inputs, cfg.reference_time_limit_s, hash_seed=ALT_HASH_SEED)) for c in cases]
    for c, (first, second) in zip(cases, futures):
        values, problems = _reference_values(c, first.result(), second.result(), 0)
        c.values, c.problems = values, problems
        c.cpu_s = first.result().cpu_time_s / max(len(c.inputs), 1)
        if not problems and c.stated is not None:
            c.problems = _disagreements(c.stated, values)


def _reference_values(c: Case, first: RawRun, second: RawRun, offset: int) -> tuple[list[Any], list[Problem]]:
    """Expected values from two runs of the reference, or the problems that rule them out."""
    if first.load_status is not None:
        return [], [Problem("reference_" + first.load_status, f"the reference does not load: {first.load_error}")]
    func = parse_signature(c.task.signature)
    ret = parse_annotation(func.returns) if not isinstance(func, Problem) else None
    values = []
    for i, (a, b) in enumerate(zip(first.outcomes, second.outcomes)):
        where = f"test {offset + i} (input {list(c.inputs[offset + i])!r:.60})"
        bad = a if a.kind is not OutcomeKind.VALUE else b
        if bad.kind is not OutcomeKind.VALUE:
            return [], [Problem(_BAD_KIND[bad.kind], f"the reference failed on {where}: {bad.error}")]
        try:
            value = to_json_value(a.value)
        except ValueError as exc:
            return [], [Problem("non_json_output", f"the reference's output on {where} is not JSON: {exc}")]
        if not values_equal(a.value, value) or not is_json(value):
            return [], [Problem("non_json_output", f"the reference returned {a.value!r:.60} on {where}, not a JSON value")]
        if not values_equal(b.value, value) or not values_equal(value, to_json_value(b.value)):
            return [], [Problem("nondeterministic", f"two runs of the reference differ on {where}: {a.value!r:.40} vs {b.value!r:.40}")]
        if ret is not None and not fits(value, ret):
            return [], [Problem("return_type_mismatch", f"the reference returned {value!r:.60} on {where}, outside its return annotation")]
        values.append(value)
    return values, []


def _disagreements(stated: list[Any], values: list[Any]) -> list[Problem]:
    wrong = [i for i, (s, v) in enumerate(zip(stated, values)) if not values_equal(v, s)]
    if not wrong:
        return []
    i = wrong[0]
    return [Problem("expected_mismatch", f"{len(wrong)} of {len(stated)} stated expected values differ from the "
                    f"reference's output (first: test {i} states {stated[i]!r:.40}, the reference returns {values[i]!r:.40})")]


def _mutant_phase(cases: list[Case], pool: SandboxPool, cfg: GenerationConfig) -> None:
    if cfg.max_mutants == 0:
        return
    jobs = [(c, m, _submit(pool, m, c, c.inputs, mutant_limit(c, cfg), mutant=True)) for c in cases
            for m in mutants(c.reference, cfg.max_mutants) + trivial_programs(c.task, c.values)]
    for c, source, future in jobs:
        _tally(c, source, future.result(), c.values)


def _tally(c: Case, source: str, run: RawRun, expected: list[Any]) -> None:
    if run.load_status is not None:
        return
    c.ran += 1
    if _caught(run, expected):
        c.killed += 1
    else:
        c.survivors.append(source)


def _caught(run: RawRun, expected: list[Any]) -> bool:
    return any(o.kind is not OutcomeKind.VALUE or not values_equal(o.value, e) for o, e in zip(run.outcomes, expected))


def _equivalence_phase(cases: list[Case], pool: SandboxPool, cfg: GenerationConfig) -> None:
    """Survivors that return what the reference returns on every probe input made by editing the task's own inputs
    are presumed equivalent and leave the ratio's denominator; the tests are left as written."""
    probes = {id(c): argument_probes(c.inputs, cfg.probe_inputs, c.task.task_id) for c in cases}
    cases = [c for c in cases if len(probes[id(c)]) >= MIN_PROBES]
    runs = [(_submit(pool, c.reference, c, probes[id(c)], cfg.reference_time_limit_s),
             _submit(pool, c.reference, c, probes[id(c)], cfg.reference_time_limit_s, hash_seed=ALT_HASH_SEED))
            for c in cases]
    answered = {id(c): _answered(first.result(), second.result()) for c, (first, second) in zip(cases, runs)}
    cases = [c for c in cases if len(answered[id(c)]) >= MIN_PROBES]
    jobs = [(c, m, _submit(pool, m, c, [probes[id(c)][i] for i in answered[id(c)]], mutant_limit(c, cfg),
                           mutant=True)) for c in cases for m in c.survivors]
    for c, _source, future in jobs:
        if not _caught(future.result(), list(answered[id(c)].values())):
            c.equivalent += 1


def _answered(first: RawRun, second: RawRun) -> dict[int, Any]:
    """Probe index -> the reference's value, for the probes it answered alike on both runs with a JSON value."""
    out = {}
    if first.load_status is not None:
        return out
    for i, (a, b) in enumerate(zip(first.outcomes, second.outcomes)):
        if a.kind is OutcomeKind.VALUE and b.kind is OutcomeKind.VALUE:
            try:
                value = to_json_value(a.value)
            except ValueError:
                continue
            if is_json(value) and values_equal(a.value, value) and values_equal(b.value, value):
                out[i] = value
    return out


def _probe_phase(cases: list[Case], pool: SandboxPool, cfg: GenerationConfig) -> None:
    """Ask each weak case's family once for probe inputs. Probe inputs that catch a surviving mutant join the
    hidden tests; survivors no probe input catches are presumed equivalent and leave the ratio's denominator."""
    probes = {id(c): [tuple(a) for a in FAMILIES.get(c.task.family).more_inputs(c.task.params, c.task.task_id,
                                                                                 cfg.probe_inputs, c.inputs)]
              for c in cases}
    cases = [c for c in cases if probes[id(c)]]
    runs = [(_submit(pool, c.reference, c, probes[id(c)], cfg.reference_time_limit_s),
             _submit(pool, c.reference, c, probes[id(c)], cfg.reference_time_limit_s, hash_seed=ALT_HASH_SEED))
            for c in cases]
    expected: dict[int, list[Any]] = {}
    for c, (first, second) in zip(cases, runs):
        probe_case = replace(c, task=replace(c.task, test_cases=tuple(TestCase(a, None) for a in probes[id(c)]), hidden_test_cases=()))
        expected[id(c)], problems = _reference_values(probe_case, first.result(), second.result(), 0)
        c.problems = [Problem(p.code, p.detail.replace("test", "probe input", 1)) for p in problems]
    jobs = [(c, m, _submit(pool, m, c, probes[id(c)], mutant_limit(c, cfg), mutant=True))
            for c in cases if not c.problems for m in c.survivors]
    catches: dict[int, list[set[int]]] = {id(c): [] for c in cases}
    for c, _source, future in jobs:
        run = future.result()
        caught = {i for i, (o, e) in enumerate(zip(run.outcomes, expected[id(c)]))
                  if run.load_status is None and (o.kind is not OutcomeKind.VALUE or not values_equal(o.value, e))}
        catches[id(c)].append(caught)
    for c in cases:
        if not c.problems:
            adopt_probes(c, probes[id(c)], expected[id(c)], catches[id(c)])


def _submit(pool: SandboxPool, code: str, c: Case, inputs: Sequence[Sequence[Any]], limit: float,
            mutant: bool = False, hash_seed: int | None = None) -> Future[RawRun]:
    n = len(inputs)
    # One timed-out test already catches a mutant, so its whole run gets little more than one test's limit:
    # a looping mutant then costs one limit, not one per test.
    total = 1.5 * limit + 4 * c.cpu_s * n if mutant else limit * n + 1.0
    return pool.submit(Job(
        code=code, entry_point=c.task.entry_point, inputs=tuple(tuple(a) for a in inputs), time_limits=(limit,) * n,
        memory_bytes=pool.cfg.memory_bytes, total_timeout=total, max_output_bytes=pool.cfg.max_output_bytes,
        hash_seed=hash_seed,
    ))
