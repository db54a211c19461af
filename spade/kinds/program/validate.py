"""Validating program tasks by execution: the reference program's output on each test's stdin is the expected
output, and the tests must tell wrong programs apart.

In: drafts (a family's stdin inputs, no outputs) or tasks from a file (stated outputs, to be reproduced), the pool
and the GenerationConfig. Out: one ValidationOutcome each, in order. Checks, in phases that each submit every job
before reading any result:
- static: a description, a parseable reference, each test one stdin string (bounded), outputs text, a known
  output_match;
- reference: run twice per test; it must exit 0 within reference_time_limit_s, print UTF-8 text of at most
  MAX_EXPECTED_BYTES, the same both times (and, for files, the stated output under the task's match mode);
- trivial wrong programs: one printing nothing, or one printing a single fixed output, must fail some test;
- mutants (spade.validate.mutants, at most PROGRAM_MUTANTS): at least mutant_kill_ratio of them must fail a test;
  when too few do, the family is asked once for probe inputs, as for Python functions; a task without a family
  (a file, a family-less draft) has its own stdin edited instead (spade.validate.probes), and a survivor that
  prints what the reference prints on every such probe is presumed equivalent (the tests stay as written).
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future
from typing import Any

from spade.config import GenerationConfig
from spade.errors import ValidationError
from spade.kinds.base import Scorer
from spade.kinds.program.judge import MATCH_MODES, judge_run, match_mode, outputs_match
from spade.kinds.program.run import (
    MAX_STDIN_BYTES,
    executor_config,
    stdin_of,
    stop_after_timeout,
)
from spade.pycode import parse_untrusted
from spade.records import Task, TaskDraft, TestStatus
from spade.registry import FAMILIES
from spade.sandbox.layers import ALT_HASH_SEED
from spade.sandbox.program import ProgramJob, ProgramRun, ProgramVerdict
from spade.validate.case import Case, adopt_probes, asks_family, draft_case, finish, mutant_limit, weak
from spade.validate.mutants import mutants
from spade.validate.outcome import Problem, ValidationOutcome
from spade.validate.probes import MIN_PROBES, stdin_probes

MAX_EXPECTED_BYTES = 64 << 10
MAX_REFERENCE_CHARS = 100_000
PROGRAM_MUTANTS = 20  # each mutant runs once per test: fewer than a function's, whose tests share one process

_BAD_RUN = {ProgramVerdict.TIMEOUT: "reference_timeout", ProgramVerdict.MEMORY: "reference_memory",
            ProgramVerdict.KILLED: "reference_killed", ProgramVerdict.INTERNAL_ERROR: "reference_internal_error"}


def validate_program_drafts(drafts: Sequence[TaskDraft], pool: Scorer, cfg: GenerationConfig) -> list[ValidationOutcome]:
    items: list[Case | ValidationOutcome] = []
    for d in drafts:
        case = draft_case(d, cfg)
        problems = static_problems(case.task, draft=True)
        items.append(ValidationOutcome.rejected(d.task_id, problems) if problems else case)
    return _run_phases(items, pool, cfg)


def validate_program_tasks(tasks: Sequence[Task], pool: Scorer | None, cfg: GenerationConfig) -> list[ValidationOutcome]:
    if pool is None and any(t.reference_solution for t in tasks):
        raise ValidationError("validating program tasks needs a SandboxPool: some have a reference_solution to run")
    items: list[Case | ValidationOutcome] = []
    for t in tasks:
        problems = static_problems(t, draft=False)
        if problems:
            items.append(ValidationOutcome.rejected(t.task_id, problems))
        elif t.reference_solution is None:
            items.append(ValidationOutcome(True, t, notes=("static_only: no reference_solution, so nothing was run",),
                                           task_id=t.task_id))
        else:
            items.append(Case(t, [c.expected for c in t.all_tests]))
    return _run_phases(items, pool, cfg)


def static_problems(task: Task, *, draft: bool) -> list[Problem]:
    """What is wrong with a program task before anything runs, each naming the field and the fix."""
    problems = []
    if not task.description.strip():
        problems.append(Problem("empty_description", "field 'description' is empty; state the problem and its "
                                                     "input and output format"))
    mode = task.params.get("output_match", "tokens")
    if mode not in MATCH_MODES:
        problems.append(Problem("bad_output_match", f"params.output_match = {mode!r:.40}; use one of "
                                                    f"{', '.join(MATCH_MODES)}"))
    reference = task.reference_solution
    if reference is None and draft:
        problems.append(Problem("no_reference", "a generated program task needs its reference program"))
    elif reference is not None:
        problems.extend(_reference_problems(reference))
    for k, case in enumerate(task.all_tests):
        where = f"test {k}"
        if len(case.args) != 1 or not isinstance(case.args[0], str):
            problems.append(Problem("bad_test_input", f"{where}: 'input' = {list(case.args)!r:.60} must be a list "
                                                      "holding one string, the program's stdin, e.g. [\"3\\n1 2 3\\n\"]"))
        elif len(case.args[0].encode("utf-8", "surrogatepass")) > MAX_STDIN_BYTES:
            problems.append(Problem("bad_test_input", f"{where}: stdin is over {MAX_STDIN_BYTES} bytes"))
        if not draft and not (isinstance(case.expected, str)
                              and len(case.expected.encode("utf-8", "surrogatepass")) <= MAX_EXPECTED_BYTES):
            problems.append(Problem("bad_expected", f"{where}: 'expected' = {case.expected!r:.40} must be the "
                                                    f"program's output as a string of at most {MAX_EXPECTED_BYTES} bytes"))
    if not task.hidden_test_cases and draft:
        problems.append(Problem("no_hidden_tests", "a generated program task needs hidden tests"))
    return problems[:5]


def _reference_problems(reference: str) -> list[Problem]:
    if len(reference) > MAX_REFERENCE_CHARS:
        return [Problem("reference_too_large", f"reference_solution has {len(reference)} characters; at most "
                                               f"{MAX_REFERENCE_CHARS}")]
    try:
        parse_untrusted(reference)
    except SyntaxError as exc:
        return [Problem("reference_syntax_error", f"reference_solution does not parse: {str(exc)[:120]}")]
    return []


def _run_phases(items: list[Case | ValidationOutcome], pool: Scorer, cfg: GenerationConfig) -> list[ValidationOutcome]:
    cases = [c for c in items if isinstance(c, Case)]
    if cases:
        _reference_phase(cases, pool, cfg)
        _mutant_phase([c for c in cases if not c.problems], pool, cfg)
        weak_cases = [c for c in cases if not c.problems and weak(c, cfg) and cfg.probe_inputs]
        _probe_phase([c for c in weak_cases if asks_family(c)], pool, cfg)
        _equivalence_phase([c for c in weak_cases if not asks_family(c)], pool, cfg)
    return [item if isinstance(item, ValidationOutcome) else finish(item, cfg, need_mutants=False) for item in items]


def _submit(pool: Scorer, code: str, inputs: Sequence[Sequence[Any]], limit: float,
            cap: int = MAX_EXPECTED_BYTES + 1, hash_seed: int | None = None) -> list[Future[ProgramRun]]:
    memory = executor_config(pool).memory_bytes
    return [pool.submit_program(ProgramJob(code, stdin_of(args), time_limit_s=limit, memory_bytes=memory,
                                           max_output_bytes=cap, hash_seed=hash_seed)) for args in inputs]


def _reference_phase(cases: list[Case], pool: Scorer, cfg: GenerationConfig) -> None:
    # The second run is on a worker with another str hash seed: output that depends on set order differs.
    runs = [(_submit(pool, c.reference, c.inputs, cfg.reference_time_limit_s),
             _submit(pool, c.reference, c.inputs, cfg.reference_time_limit_s, hash_seed=ALT_HASH_SEED))
            for c in cases]
    for c, (first, second) in zip(cases, runs):
        a = [f.result() for f in first]
        b = [f.result() for f in second]
        c.values, problems = reference_outputs(c.inputs, a, b)
        c.problems.extend(problems)
        c.cpu_s = sum(r.cpu_time_s for r in a) / max(len(a), 1)
        if not c.problems and c.stated is not None:
            c.problems.extend(_disagreements(c.stated, c.values, match_mode(c.task)))
        if not c.problems:
            c.problems.extend(trivial_problems(c.values, match_mode(c.task)))


def reference_outputs(inputs: Sequence[Sequence[Any]], first: Sequence[ProgramRun],
                      second: Sequence[ProgramRun]) -> tuple[list[str], list[Problem]]:
    """The expected outputs from two runs of the reference per test, or the problem that rules them out."""
    values = []
    for k, (a, b) in enumerate(zip(first, second)):
        where = f"test {k} (stdin {inputs[k][0] if inputs[k] else ''!r:.50})"
        for run in (a, b):
            if run.verdict in _BAD_RUN:
                return [], [Problem(_BAD_RUN[run.verdict], f"the reference program ended by {run.verdict.value} on "
                                                           f"{where}{': ' + run.error if run.error else ''}")]
            if run.exit_code != 0:
                tail = run.stderr[-300:].decode("utf-8", "replace").strip().splitlines()
                return [], [Problem("reference_raises", f"the reference program exited with code {run.exit_code} "
                                                        f"on {where}: {tail[-1] if tail else ''}")]
            if run.stdout_bytes > MAX_EXPECTED_BYTES:
                return [], [Problem("output_too_large", f"the reference printed {run.stdout_bytes} bytes on {where}; "
                                                        f"at most {MAX_EXPECTED_BYTES}")]
        if a.stdout != b.stdout:
            return [], [Problem("nondeterministic", f"two runs of the reference print different outputs on {where}: "
                                                    f"{a.stdout[:40]!r} vs {b.stdout[:40]!r}")]
        try:
            values.append(a.stdout.decode("utf-8"))
        except UnicodeDecodeError:
            return [], [Problem("non_utf8_output", f"the reference's output on {where} is not UTF-8 text")]
    return values, []


def _disagreements(stated: list[Any], values: list[str], mode: str) -> list[Problem]:
    wrong = [k for k, (s, v) in enumerate(zip(stated, values)) if not outputs_match(v.encode(), s, mode)]
    if not wrong:
        return []
    k = wrong[0]
    return [Problem("expected_mismatch", f"{len(wrong)} of {len(stated)} stated outputs differ from the reference's "
                                         f"({mode} match; first: test {k} states {stated[k]!r:.40}, the reference "
                                         f"prints {values[k]!r:.40})")]


def trivial_problems(values: list[str], mode: str) -> list[Problem]:
    """Tests that a program printing nothing, or always the same output, would pass."""
    if all(outputs_match(b"", v, mode) for v in values):
        return [Problem("empty_output", "the reference prints nothing on every test, so an empty program passes")]
    if len(values) > 1 and all(outputs_match(values[0].encode(), v, mode) for v in values):
        return [Problem("constant_output", f"the reference prints the same output on every test "
                                           f"({values[0][:40]!r}), so a program printing it passes; vary the inputs")]
    return []


def _mutant_phase(cases: list[Case], pool: Scorer, cfg: GenerationConfig) -> None:
    limit = min(cfg.max_mutants, PROGRAM_MUTANTS)
    if limit == 0:
        return
    jobs = [(c, m, _submit(pool, m, c.inputs, mutant_limit(c, cfg))) for c in cases
            for m in mutants(c.reference, limit)]
    for _, _, futures in jobs:
        stop_after_timeout(futures)  # a timeout already catches the mutant: a looping one costs one limit
    for c, source, futures in jobs:
        c.ran += 1
        if _mutant_caught(futures, c.values, match_mode(c.task)):
            c.killed += 1
        else:
            c.survivors.append(source)


def _mutant_caught(futures: list[Future[ProgramRun]], expected: list[str], mode: str) -> bool:
    """Whether a mutant fails some test; its tests not yet started when it first fails are cancelled."""
    for k, future in enumerate(futures):  # a later test is cancelled only after an earlier one timed out
        if judge_run(k, False, future.result(), expected[k], mode).status is not TestStatus.PASSED:
            for later in futures[k + 1:]:
                later.cancel()
            return True
    return False


def _caught(runs: list[ProgramRun], expected: list[str], mode: str) -> set[int]:
    """The tests a program's runs fail."""
    return {k for k, (r, e) in enumerate(zip(runs, expected))
            if judge_run(k, False, r, e, mode).status is not TestStatus.PASSED}


def _equivalence_phase(cases: list[Case], pool: Scorer, cfg: GenerationConfig) -> None:
    """Survivors printing what the reference prints on every stdin probe (a test's stdin with one integer nudged)
    are presumed equivalent and leave the ratio's denominator; probes the reference does not answer cleanly are
    dropped."""
    probes = {id(c): stdin_probes(c.inputs, cfg.probe_inputs, c.task.task_id) for c in cases}
    cases = [c for c in cases if len(probes[id(c)]) >= MIN_PROBES]
    runs = [(_submit(pool, c.reference, probes[id(c)], cfg.reference_time_limit_s),
             _submit(pool, c.reference, probes[id(c)], cfg.reference_time_limit_s, hash_seed=ALT_HASH_SEED))
            for c in cases]
    kept: dict[int, list[tuple[tuple[Any, ...], str]]] = {}
    for c, (first, second) in zip(cases, runs):
        kept[id(c)] = []
        for probe, a, b in zip(probes[id(c)], first, second):
            values, problems = reference_outputs([probe], [a.result()], [b.result()])
            if not problems:
                kept[id(c)].append((probe, values[0]))
    cases = [c for c in cases if len(kept[id(c)]) >= MIN_PROBES]
    jobs = [(c, _submit(pool, m, [p for p, _ in kept[id(c)]], mutant_limit(c, cfg))) for c in cases
            for m in c.survivors]
    for c, futures in jobs:
        if not _caught([f.result() for f in futures], [v for _, v in kept[id(c)]], match_mode(c.task)):
            c.equivalent += 1


def _probe_phase(cases: list[Case], pool: Scorer, cfg: GenerationConfig) -> None:
    """Ask each weak case's family once for more stdin inputs; those that catch a surviving mutant join the hidden
    tests, survivors none catches are presumed equivalent (left out of the ratio), as for Python functions."""
    probes = {id(c): [tuple(a) for a in FAMILIES.get(c.task.family).more_inputs(
        c.task.params, c.task.task_id, cfg.probe_inputs, c.inputs)] for c in cases}
    cases = [c for c in cases if probes[id(c)]]
    runs = [(_submit(pool, c.reference, probes[id(c)], cfg.reference_time_limit_s),
             _submit(pool, c.reference, probes[id(c)], cfg.reference_time_limit_s, hash_seed=ALT_HASH_SEED))
            for c in cases]
    expected: dict[int, list[str]] = {}
    for c, (first, second) in zip(cases, runs):
        expected[id(c)], problems = reference_outputs(probes[id(c)], [f.result() for f in first],
                                                      [f.result() for f in second])
        c.problems.extend(Problem(p.code, p.detail.replace("test", "probe input", 1)) for p in problems)
    jobs = [(c, _submit(pool, m, probes[id(c)], mutant_limit(c, cfg))) for c in cases if not c.problems
            for m in c.survivors]
    catches: dict[int, list[set[int]]] = {id(c): [] for c in cases}
    for c, futures in jobs:
        catches[id(c)].append(_caught([f.result() for f in futures], expected[id(c)], match_mode(c.task)))
    for c in cases:
        if not c.problems:
            adopt_probes(c, probes[id(c)], expected[id(c)], catches[id(c)])
