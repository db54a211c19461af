"""Validating code-reasoning tasks by execution: expected outputs come only from running the program in the sandbox.

In: drafts (a program and candidate inputs, no outputs) or tasks (stated outputs, to be reproduced), the pool and
the GenerationConfig. Out: one ValidationOutcome each, in order. Induction tasks are Python function tasks shown
differently, so they are validated as those are (spade.validate.dynamic: reference run twice, mutants must fail).
Deduction and abduction tasks:
- static: a known mode, a program of at most MAX_PROGRAM_CHARS that parses and defines the entry point, inputs;
- the program runs on every input twice (the second time on a worker with another str hash seed); each run must
  return a plain JSON value of at most MAX_VALUE_CHARS characters, the same both times (deterministic);
- not constant: with two or more inputs the outputs must differ (else any input answers an abduction);
- the query is the first input whose call and output are both short enough to show (MAX_SHOWN_CHARS).
A proposer's drafts may first pass `keep_returning`: one run of the program, and the inputs on which it raises
are left out (the rest are then validated in full, as above).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from spade.config import GenerationConfig
from spade.kinds.base import Scorer
from spade.kinds.code_reasoning.prompt import INDUCTION, MODES, call_text
from spade.kinds.program.run import executor_config
from spade.kinds.python_function.program import defines
from spade.pycode import parse_untrusted
from spade.records import PYTHON_FUNCTION, Task, TaskDraft, TestCase
from spade.sandbox import Job, OutcomeKind, RawRun, to_json_value, values_equal
from spade.sandbox.layers import ALT_HASH_SEED
from spade.validate.outcome import Problem, ValidationOutcome
from spade.validate.types import is_json

KIND = "code_reasoning"
MAX_PROGRAM_CHARS = 1500
MAX_VALUE_CHARS = 2000
MAX_SHOWN_CHARS = 120
MAX_INPUTS = 16
Inputs = tuple[tuple[Any, ...], ...]


@dataclass
class _Case:
    task: Task
    inputs: list[tuple[Any, ...]]
    stated: list[Any] | None
    problems: list[Problem] = field(default_factory=list)


def split_inputs(mode: str, inputs: Sequence[tuple[Any, ...]], n_public: int = 3) -> tuple[Inputs, Inputs]:
    """(shown, hidden): induction shows the first pairs, at most n_public and at most half, and hides the rest;
    the other modes keep every input as a candidate query."""
    if mode != INDUCTION:
        return tuple(inputs), ()
    shown = min(n_public, max(1, len(inputs) // 2))
    return tuple(inputs[:shown]), tuple(inputs[shown:])


def keep_returning(drafts: Sequence[TaskDraft], pool: Scorer, cfg: GenerationConfig) -> list[TaskDraft]:
    """Each draft with the inputs on which its program raises left out, after one run in the sandbox (a proposer's
    `print(f(5))` beside `print(f([1, 2]))`). A draft whose program does not load, or raises on every input, stays
    whole, so validation names its problem; timeouts and crashes stay too (validation refuses them)."""
    futures = [_submit(pool, _Case(Task(d.task_id, "", d.signature, d.entry_point, d.difficulty, d.tags,
                                        reference_solution=d.reference_solution, kind=KIND),
                                   [tuple(a) for a in d.all_inputs][:MAX_INPUTS], None), cfg, None)
               for d in drafts]
    out = []
    for d, future in zip(drafts, futures):
        run: RawRun = future.result()
        inputs = [tuple(a) for a in d.all_inputs][:MAX_INPUTS]
        kept = [a for a, o in zip(inputs, run.outcomes) if o.kind is not OutcomeKind.EXCEPTION]
        kept += inputs[len(run.outcomes):]
        if run.load_status is not None or not kept or len(kept) == len(inputs):
            out.append(d)
            continue
        public, hidden = split_inputs(str(d.params.get("mode")), kept)
        out.append(replace(d, public_inputs=public, hidden_inputs=hidden))
    return out


def validate_drafts(drafts: Sequence[TaskDraft], pool: Scorer, cfg: GenerationConfig) -> list[ValidationOutcome]:
    from spade.validate.dynamic import validate_drafts as validate_functions

    def as_task(d: TaskDraft) -> _Case:
        task = Task(d.task_id, d.description, d.signature, d.entry_point, d.difficulty, d.tags,
                    reference_solution=d.reference_solution, family=d.family, params=dict(d.params),
                    provenance=dict(d.provenance), kind=KIND)
        return _Case(task, [tuple(a) for a in d.all_inputs][:MAX_INPUTS], None)

    return _split(drafts, lambda ds: validate_functions([replace(d, kind=PYTHON_FUNCTION) for d in ds], pool, cfg),  # type: ignore[arg-type]
                  lambda ds: _run([as_task(d) for d in ds], pool, cfg))


def validate_tasks(tasks: Sequence[Task], pool: Scorer | None, cfg: GenerationConfig) -> list[ValidationOutcome]:
    from spade.validate.dynamic import validate_tasks as validate_functions

    def as_case(t: Task) -> _Case:
        return _Case(t, [tuple(c.args) for c in t.all_tests], [c.expected for c in t.all_tests])

    if pool is None:
        return [ValidationOutcome.rejected(t.task_id, [Problem("no_sandbox", "code_reasoning tasks are validated by "
                                                                             "running their program; give a sandbox")])
                for t in tasks]
    return _split(tasks, lambda ts: validate_functions([replace(t, kind=PYTHON_FUNCTION) for t in ts], pool, cfg),  # type: ignore[arg-type]
                  lambda ts: _run([as_case(t) for t in ts], pool, cfg))


def _split(items: Sequence[Any], induction: Any, others: Any) -> list[ValidationOutcome]:
    """Induction items validated as functions (re-kinded after), the rest by `others`; results in order."""
    out: list[ValidationOutcome | None] = [None] * len(items)
    groups = {True: [i for i, x in enumerate(items) if x.params.get("mode") == INDUCTION],
              False: [i for i, x in enumerate(items) if x.params.get("mode") != INDUCTION]}
    for is_induction, indices in groups.items():
        if not indices:
            continue
        done = (induction if is_induction else others)([items[i] for i in indices])
        for i, outcome in zip(indices, done):
            if is_induction and outcome.task is not None:
                outcome = replace(outcome, task=replace(outcome.task, kind=KIND))
            out[i] = outcome
    return [o for o in out if o is not None]


def static_problems(task: Task, inputs: list[tuple[Any, ...]]) -> list[Problem]:
    """What is wrong before anything runs, each naming the field and the fix."""
    mode = task.params.get("mode")
    if mode not in MODES:
        return [Problem("bad_mode", f"params.mode = {mode!r:.40}; use one of {', '.join(MODES)}")]
    program = task.reference_solution or ""
    if not program.strip():
        return [Problem("no_reference", "a code_reasoning task needs its program as reference_solution")]
    if len(program) > MAX_PROGRAM_CHARS:
        return [Problem("reference_too_large", f"the program has {len(program)} characters; at most "
                                               f"{MAX_PROGRAM_CHARS}")]
    try:
        parse_untrusted(program)
    except SyntaxError as exc:
        return [Problem("reference_syntax_error", f"the program does not parse: {str(exc)[:120]}")]
    if not defines(program, task.entry_point):
        return [Problem("no_entry_point", f"the program does not define {task.entry_point!r:.40} at top level")]
    if not inputs:
        return [Problem("no_inputs", "a code_reasoning task needs at least one input")]
    return []


def _run(cases: list[_Case], pool: Scorer, cfg: GenerationConfig) -> list[ValidationOutcome]:
    for c in cases:
        c.problems = static_problems(c.task, c.inputs)
    live = [c for c in cases if not c.problems]
    futures = [(_submit(pool, c, cfg, None), _submit(pool, c, cfg, ALT_HASH_SEED)) for c in live]
    values: dict[int, list[Any]] = {}
    for c, (first, second) in zip(live, futures):
        values[id(c)], c.problems = outputs(c, first.result(), second.result())
    return [_finish(c, values.get(id(c), [])) for c in cases]


def _submit(pool: Scorer, c: _Case, cfg: GenerationConfig, hash_seed: int | None) -> Any:
    limit, n = cfg.reference_time_limit_s, len(c.inputs)
    ex = executor_config(pool)
    return pool.submit(Job(code=c.task.reference_solution or "", entry_point=c.task.entry_point,  # type: ignore[attr-defined]
                           inputs=tuple(c.inputs), time_limits=(limit,) * n, memory_bytes=ex.memory_bytes,
                           total_timeout=limit * n + 1.0, max_output_bytes=ex.max_output_bytes, hash_seed=hash_seed))


def outputs(c: _Case, first: RawRun, second: RawRun) -> tuple[list[Any], list[Problem]]:
    """The program's output on each input from two runs, or the problem that rules the task out."""
    if first.load_status is not None:
        return [], [Problem("reference_" + first.load_status, f"the program does not load: {first.load_error}")]
    if "output_flood" in first.events or "output_flood" in second.events:  # each judging run would print it again
        return [], [Problem("output_flood", "the program prints more than executor.max_output_bytes; a "
                                            "code-reasoning program returns its answer and prints nothing much")]
    values = []
    for k, (a, b) in enumerate(zip(first.outcomes, second.outcomes)):
        where = f"input {k} ({list(c.inputs[k])!r:.60})"
        bad = a if a.kind is not OutcomeKind.VALUE else b
        if bad.kind is not OutcomeKind.VALUE:
            return [], [Problem(f"reference_{bad.kind.value}", f"the program failed on {where}: {bad.error}")]
        try:
            value, plain = to_json_value(a.value), True
        except (ValueError, TypeError, RecursionError):
            value, plain = None, False
        if not plain or not is_json(value):
            return [], [Problem("non_json_output", f"the program returned {a.value!r:.60} on {where}, not plain JSON")]
        if not values_equal(b.value, a.value):  # as returned: two sets are compared as sets, in any order
            return [], [Problem("nondeterministic", f"two runs of the program differ on {where}")]
        if len(json.dumps(value)) > MAX_VALUE_CHARS:
            return [], [Problem("output_too_large", f"the output on {where} is over {MAX_VALUE_CHARS} characters")]
        values.append(value)
    if len(values) > 1 and all(values_equal(v, values[0]) for v in values):
        return [], [Problem("constant_output", f"the program returns {values[0]!r:.40} on every input; any input "
                                               "would answer it")]
    if c.stated is not None:
        wrong = [k for k, (s, v) in enumerate(zip(c.stated, values)) if not values_equal(v, s)]
        if wrong:
            return [], [Problem("expected_mismatch", f"{len(wrong)} stated outputs differ from the program's "
                                                     f"(first: input {wrong[0]})")]
    return values, []


def _finish(c: _Case, values: list[Any]) -> ValidationOutcome:
    if c.problems:
        return ValidationOutcome.rejected(c.task.task_id, c.problems)
    shown = [k for k, (args, v) in enumerate(zip(c.inputs, values))
             if len(call_text(c.task.entry_point, args)) <= MAX_SHOWN_CHARS and len(repr(v)) <= MAX_SHOWN_CHARS]
    if not shown:
        return ValidationOutcome.rejected(c.task.task_id, [Problem("too_long_to_show", "no input whose call and "
                                                                   f"output both fit in {MAX_SHOWN_CHARS} characters")])
    k = shown[0]
    task = replace(c.task, test_cases=(TestCase(c.inputs[k], values[k]),), hidden_test_cases=(), kind=KIND)
    return ValidationOutcome(True, task, task_id=task.task_id)
