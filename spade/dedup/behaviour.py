"""Contamination by behaviour: does a training task's reference answer an evaluation task?

The dedup index compares wording and code; two tasks worded apart can still be one problem (a generated
`count_primes` and the built-in `count_primes_below`). Here a training task's reference is run, in the sandbox, on
the inputs of every evaluation task of the same signature shape (arity and coarse argument types), and it is
contaminated when it returns each such task's expected values on all of its tests (compared by the grader's own
rules). The expected values of a suite are its references' outputs on its inputs, computed in the sandbox when
the suite was built and cached with it, so the evaluation side costs nothing per run.
In: evaluation tasks by suite; training tasks (validated) and a sandbox pool. Out: the matches, one per
(training task, evaluation task), and per-task verdicts. One sandbox job per training task, all checked in
parallel. Training tasks screened: Python functions and code-reasoning tasks of every mode (induction asks for the
program; deduction and abduction show it and teach its outputs). Not covered: tasks of the other kinds, tasks
without a reference, evaluation tasks
whose tests all expect one value (any constant would match), and evaluation tasks on whose inputs the training
reference does not finish within the per-input limit (kept: the screen errs toward keeping a task).
A match that would leave an in-distribution evaluation task out of the run's evaluation must also be *computed*:
the training reference has to agree with the evaluation task's own reference on inputs next to the task's (NEARBY),
which a reference that stores the task's pairs in a table cannot. Unconfirmed, the match is recorded and the
evaluation task stays in (a proposal cannot steer which evaluation tasks a run is graded on).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from spade.records import PYTHON_FUNCTION, Task, TestCase, TestStatus

PROBE_S, PROBE_TOTAL_S = 0.02, 1.0  # first round: per input, and for a training task's whole job (wall)
PER_INPUT_S, TOTAL_S = 0.5, 5.0  # later rounds (few candidates left)
SINGLE_ROUNDS = 3  # rounds of one input per candidate before the rest of the inputs run at once
MAX_CANDIDATES = 500  # evaluation tasks tried per training task, at most


@dataclass(frozen=True, slots=True)
class BehaviourMatch:
    """Training task `task_id`'s reference gives evaluation task `eval_id`'s (of `suite`) expected values.
    `drops`: the evaluation task is left out of the run's evaluation (an in-distribution match that is computed)."""

    task_id: str
    suite: str
    eval_id: str
    drops: bool = True


def shape(tests: Sequence[TestCase] | Sequence[tuple[Any, ...]]) -> tuple[str, ...] | None:
    """Arity and coarse types of the first test's arguments; None when there is no test."""
    if not tests:
        return None
    first = tests[0]
    args = first.args if isinstance(first, TestCase) else first
    return tuple(_coarse(a) for a in args)


def _coarse(value: Any) -> str:
    if value is None or isinstance(value, bool):
        return type(value).__name__
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, (list, tuple)):
        return "sequence"
    return type(value).__name__


def _checkable(task: Task) -> bool:
    """A Python function task with tests whose expected values are not all one value."""
    tests = task.all_tests
    if task.kind != PYTHON_FUNCTION or len(tests) < 2:
        return False
    first = repr(tests[0].expected)
    return any(repr(t.expected) != first for t in tests[1:])


def _has_program(task: Task) -> bool:
    """A training task built on one function: Python function tasks and code_reasoning tasks of every mode."""
    return task.kind in (PYTHON_FUNCTION, "code_reasoning")


class BehaviourIndex:
    """Evaluation tasks grouped by shape; `screen` runs training references on the inputs of their shape."""

    def __init__(self, suites: Mapping[str, Iterable[Task]]) -> None:
        self._by_shape: dict[tuple[str, ...], list[tuple[str, Task]]] = {}
        self._by_id: dict[tuple[str, str], Task] = {}
        for suite, tasks in suites.items():
            for task in tasks:
                if _checkable(task):
                    key = shape(task.all_tests)
                    if key is not None:
                        self._by_shape.setdefault(key, []).append((suite, task))
                        self._by_id[(suite, task.task_id)] = task

    def computed(self, pairs: Sequence[tuple[Task, BehaviourMatch]], pool: Any) -> list[bool]:
        """Per (training task, its match): does the training reference agree with the evaluation task's reference
        on NEARBY inputs next to the evaluation task's own (on every one of them the evaluation reference answers,
        at least one)? False when the evaluation task has no reference or no such input."""
        def job(code: str, task: Task, inputs: list[tuple[Any, ...]]) -> Any:
            probe = replace(task, test_cases=tuple(TestCase(a, None) for a in inputs), hidden_test_cases=())
            return pool.submit(replace(pool.job_for(probe, code, (PER_INPUT_S,) * len(inputs)), total_timeout=TOTAL_S))

        runs: list[tuple[Any, Any] | None] = []
        for task, m in pairs:
            other = self._by_id.get((m.suite, m.eval_id))
            inputs = nearby_inputs(other.all_tests) if other is not None and other.reference_solution else []
            runs.append((job(other.reference_solution or "", other, inputs), job(task.reference_solution or "", task, inputs))
                        if other is not None and inputs else None)
        return [run is not None and _agree(run[0].result(), run[1].result()) for run in runs]

    def __len__(self) -> int:
        return sum(len(v) for v in self._by_shape.values())

    def candidates(self, task: Task) -> list[tuple[str, Task]]:
        """The evaluation tasks `task`'s reference is run on: those of its shape (MAX_CANDIDATES at most)."""
        if not _has_program(task) or not task.reference_solution:
            return []
        return self._by_shape.get(shape(task.all_tests) or (), [])[:MAX_CANDIDATES]

    def screen(self, tasks: Sequence[Task], pool: Any) -> list[BehaviourMatch]:
        """Every (training task, evaluation task) whose reference behaves alike on the evaluation task's inputs.
        In rounds, each one sandbox job per training task, all in parallel: the reference runs on the shortest
        input of every candidate, then on the next shortest of those it answered, and so on for SINGLE_ROUNDS
        rounds; the few candidates still standing then get all their remaining inputs in one round."""
        state = []
        for task in tasks:
            found = self.candidates(task)
            if found:
                state.append((task, [(suite, other, _by_length(other.all_tests)) for suite, other in found]))
        for r in range(SINGLE_ROUNDS + 1):
            last = r == SINGLE_ROUNDS
            chosen = [(task, [(s, o, tests[r:] if last else tests[r:r + 1]) for s, o, tests in found])
                      for task, found in state]
            limits = (PROBE_S, PROBE_TOTAL_S) if r == 0 else (PER_INPUT_S, TOTAL_S)
            passed = _run_round(chosen, pool, *limits)
            state = [(task, [c for c in found if (c[0], c[1].task_id) in ok])
                     for (task, found), ok in zip(state, passed)]
        return [BehaviourMatch(task.task_id, suite, other.task_id) for task, found in state for suite, other, _ in found]


Candidates = list[tuple[str, Task, tuple[TestCase, ...]]]


def _run_round(rounds: list[tuple[Task, Candidates]], pool: Any, per_input: float,
               total: float) -> list[set[tuple[str, str]]]:
    """Each training task's reference on the given tests of its candidates (one job per task with any test);
    per task, the (suite, task id) of the candidates whose given tests it all passed (all, when given none)."""
    from spade.sandbox import grade

    jobs: list[Any] = []
    for task, found in rounds:
        tests = tuple(t for _, _, chosen in found for t in chosen)
        if not tests:
            jobs.append(None)
            continue
        probe = replace(task, test_cases=tests, hidden_test_cases=())
        job = replace(pool.job_for(probe, task.reference_solution or "", (per_input,) * len(tests)),
                      total_timeout=total, run_all_tests_after_timeout=True)
        jobs.append((probe, pool.submit(job)))
    out = []
    for (_task, found), job in zip(rounds, jobs):
        outcomes = grade(job[0], job[1].result()).tests if job is not None else ()
        hits, start = set(), 0
        for suite, other, chosen in found:
            if all(o.status is TestStatus.PASSED for o in outcomes[start:start + len(chosen)]):
                hits.add((suite, other.task_id))
            start += len(chosen)
        out.append(hits)
    return out


NEARBY = 6  # inputs next to an evaluation task's that a match must also compute


def nearby_inputs(tests: Sequence[TestCase], count: int = NEARBY) -> list[tuple[Any, ...]]:
    """Argument lists next to `tests`' own and none of them: one argument of a test's nudged (a number +1 or +2, a
    sequence or string one element longer or with its first element nudged). Deterministic; `count` at most."""
    import json

    seen = {json.dumps(list(t.args), sort_keys=True, default=repr) for t in tests}
    out: list[tuple[Any, ...]] = []
    for step in (1, 2):
        for t in tests:
            for i, arg in enumerate(t.args):
                for new in _nudged(arg, step):
                    args = (*t.args[:i], new, *t.args[i + 1:])
                    key = json.dumps(list(args), sort_keys=True, default=repr)
                    if key not in seen:
                        seen.add(key)
                        out.append(args)
                        if len(out) >= count:
                            return out
    return out


def _nudged(value: Any, step: int) -> list[Any]:
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, (int, float)):
        return [value + step]
    if isinstance(value, str):
        return [value + "ab"[step - 1]]
    if isinstance(value, list):
        out = [[*value, *(value[-1:] if value else [step])]]
        if value and not isinstance(value[0], bool) and isinstance(value[0], (int, float)):
            out.append([value[0] + step, *value[1:]])
        return out
    return []


def _agree(reference: Any, training: Any) -> bool:
    """Both loaded; on every input the evaluation reference returned a value (one at least), the training one
    returned an equal value."""
    from spade.sandbox import OutcomeKind, values_equal

    if reference.load_status is not None or training.load_status is not None:
        return False
    answered = 0
    for a, b in zip(reference.outcomes, training.outcomes):
        if a.kind is not OutcomeKind.VALUE:
            continue
        answered += 1
        if b.kind is not OutcomeKind.VALUE or not values_equal(a.value, b.value):
            return False
    return answered > 0


def _by_length(tests: Sequence[TestCase]) -> tuple[TestCase, ...]:
    """Tests by how long their arguments print (the cheapest to run first), ties by order."""
    return tuple(sorted(tests, key=lambda t: len(repr(t.args))))


REASON = "contaminated_behaviour"
MATCHES_NAME = "contamination.jsonl"  # a run's matches, in its run directory


class ContaminationScreen:
    """The loop's use of a BehaviourIndex: a validated task that behaves as a task of a `reserved` suite is
    rejected (reason REASON); one that behaves as a task of another (in-distribution) suite is kept, and that
    evaluation task is left out when the run is evaluated (`matched`). Every match is appended to `path` (JSON
    lines), so an evaluation after the run, or a resumed run, leaves out the same tasks."""

    def __init__(self, index: BehaviourIndex, reserved: Iterable[str], path: Any = None) -> None:
        self.index = index
        self.reserved = frozenset(reserved)
        self.path = path
        self.matched: set[str] = set(read_matches(path)) if path is not None else set()
        self.seconds = 0.0  # time spent screening, for the iteration's metrics

    def exclude(self, outcomes: list[Any], pool: Any) -> list[Any]:
        """`outcomes` (ValidationOutcome) with the accepted ones that behave as a reserved task rejected."""
        import json
        import time

        from spade.validate.outcome import ValidationOutcome

        started = time.perf_counter()
        tasks = [o.task for o in outcomes if o.accepted and o.task is not None]
        matches = self.index.screen(tasks, pool) if tasks and len(self.index) else []
        if matches:  # only an in-distribution match that is computed drops its evaluation task
            by_id = {t.task_id: t for t in tasks}
            local = [m for m in matches if m.suite not in self.reserved]
            computed = self.index.computed([(by_id[m.task_id], m) for m in local], pool)
            confirmed = {(m.task_id, m.eval_id) for m, ok in zip(local, computed) if ok}
            matches = [replace(m, drops=(m.task_id, m.eval_id) in confirmed) for m in matches]
        self.seconds += time.perf_counter() - started
        if not matches:
            return outcomes
        if self.path is not None:
            with open(self.path, "a", encoding="utf-8") as fh:
                fh.writelines(json.dumps({"task_id": m.task_id, "suite": m.suite, "eval_id": m.eval_id,
                                          "drops": m.drops}) + "\n" for m in matches)
        self.matched |= {m.eval_id for m in matches if m.drops}
        hit: dict[str, BehaviourMatch] = {}
        for m in matches:
            if m.suite in self.reserved:
                hit.setdefault(m.task_id, m)
        out = []
        for o in outcomes:
            found = hit.get(o.task.task_id) if o.accepted and o.task is not None else None
            if found is None or o.task is None:
                out.append(o)
                continue
            detail = f"its reference gives {found.suite} task {found.eval_id}'s expected values on all its inputs"
            out.append(ValidationOutcome(False, None, (REASON,), (detail,), o.notes, o.task.task_id, o.kill_ratio))
        return out


def read_matches(path: Any) -> list[str]:
    """The evaluation task ids a run's matches file leaves out of its evaluation (none when it is missing or
    unreadable): rows with drops true (a row written before the field: every row)."""
    import json
    from pathlib import Path

    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    ids = []
    for line in lines:
        try:
            row = json.loads(line)
        except ValueError:
            continue  # a line cut short by a crash
        if isinstance(row, dict) and isinstance(row.get("eval_id"), str) and row.get("drops", True) is True:
            ids.append(row["eval_id"])
    return ids
