"""One task moving through validation's phases, and the steps the function and program validators share.

In: a TaskDraft (a family's inputs, no expected values) or a Task from a file (stated values, to be reproduced).
Out: the Case the phases fill (the reference's values, the mutant tally), and at the end one ValidationOutcome.
What differs between kinds (how a run is submitted and judged) stays with each validator: spade.validate.dynamic
for Python functions, spade.kinds.program.validate for stdin programs.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from spade.config import GenerationConfig
from spade.records import Task, TaskDraft, TestCase
from spade.registry import FAMILIES
from spade.validate.outcome import Problem, ValidationOutcome


@dataclass
class Case:
    """`problems` non-empty means the task is out."""

    task: Task  # expected values are placeholders until the reference has run
    stated: list[Any] | None  # expected values a file gave, to be reproduced
    problems: list[Problem] = field(default_factory=list)
    values: list[Any] = field(default_factory=list)
    cpu_s: float = 0.0
    ran: int = 0
    killed: int = 0
    survivors: list[str] = field(default_factory=list)
    equivalent: int = 0  # survivors no probe input could catch, presumed equivalent to the reference

    @property
    def reference(self) -> str:
        return self.task.reference_solution or ""

    @property
    def inputs(self) -> list[tuple[Any, ...]]:
        return [tuple(t.args) for t in self.task.all_tests]

    @property
    def kill_ratio(self) -> float | None:
        judged = self.ran - self.equivalent
        return self.killed / judged if judged else (1.0 if self.ran else None)


def public_count(d: TaskDraft, cfg: GenerationConfig) -> int:
    """How many of the draft's inputs are shown: its public ones, less what min_hidden_share keeps hidden."""
    return min(len(d.public_inputs), int(len(d.all_inputs) * (1 - cfg.min_hidden_share) + 1e-9))


def draft_case(d: TaskDraft, cfg: GenerationConfig) -> Case:
    """The draft as a task whose tests hold its inputs with placeholder expected values."""
    inputs = list(d.all_inputs)
    n_public = public_count(d, cfg)
    task = Task(task_id=d.task_id, description=d.description, signature=d.signature, entry_point=d.entry_point,
                difficulty=d.difficulty, tags=d.tags,
                test_cases=tuple(TestCase(tuple(a), None) for a in inputs[:n_public]),
                hidden_test_cases=tuple(TestCase(tuple(a), None) for a in inputs[n_public:]),
                reference_solution=d.reference_solution, family=d.family, params=dict(d.params),
                provenance=dict(d.provenance), kind=d.kind)
    return Case(task, None)


def mutant_limit(c: Case, cfg: GenerationConfig) -> float:
    """One test's time limit for a mutant: the configured one, or 20 times the reference's CPU when that is more."""
    return max(cfg.mutant_time_limit_s, 20 * c.cpu_s)


def weak(c: Case, cfg: GenerationConfig) -> bool:
    ratio = c.kill_ratio
    return ratio is not None and ratio < cfg.mutant_kill_ratio


def asks_family(c: Case) -> bool:
    """Whether a weak case asks its family for probe inputs that join its tests (a generated draft), rather than
    having its own inputs edited to recognise equivalent mutants (a task file, a family-less draft)."""
    return bool(c.task.family) and c.task.family in FAMILIES and c.stated is None


def adopt_probes(c: Case, probes: list[tuple[Any, ...]], expected: list[Any], catches: list[set[int]]) -> None:
    """Probe inputs join the hidden tests, fewest first that catch every survivor some probe catches (greedy cover:
    the probe catching most still-uncaught survivors first); survivors none catches count as equivalent."""
    chosen: list[int] = []
    open_sets = [s for s in catches if s]
    while open_sets:
        best = max(range(len(probes)), key=lambda i: (sum(i in s for s in open_sets), -i))
        chosen.append(best)
        open_sets = [s for s in open_sets if best not in s]
    c.killed += sum(1 for s in catches if s)
    c.equivalent = sum(1 for s in catches if not s)
    c.survivors = []
    c.task = replace(c.task, hidden_test_cases=c.task.hidden_test_cases
                     + tuple(TestCase(probes[i], None) for i in sorted(chosen)))
    c.values = c.values + [expected[i] for i in sorted(chosen)]


def finish(c: Case, cfg: GenerationConfig, *, need_mutants: bool) -> ValidationOutcome:
    """The verdict: rejected with the case's problems, or the task with the reference's values as its expected
    ones, its kill ratio and reference CPU. `need_mutants`: a case with mutants configured but none run is refused
    (no_mutants) rather than passed for want of evidence."""
    ratio = c.kill_ratio
    if not c.problems and need_mutants and cfg.max_mutants and c.ran == 0:
        c.problems = [Problem("no_mutants", "no mutant of the reference and no trivial wrong answer could be run "
                              "against the tests, so nothing shows they tell a wrong answer from a right one; "
                              "give the function an argument or add tests with different expected values")]
    if not c.problems and weak(c, cfg):
        c.problems = [Problem("weak_tests", f"the tests catch {c.killed} of {c.ran - c.equivalent} mutants of the "
                              f"reference ({ratio:.2f}), below mutant_kill_ratio = {cfg.mutant_kill_ratio}")]
    if c.problems:
        return ValidationOutcome.rejected(c.task.task_id, c.problems, ratio)
    tests = [TestCase(tuple(t.args), v) for t, v in zip(c.task.all_tests, c.values)]
    n_public = len(c.task.test_cases)
    params = dict(c.task.params)
    if ratio is not None:
        params["mutant_kill_ratio"] = round(ratio, 4)
        params["mutants_equivalent"] = c.equivalent
    task = replace(c.task, test_cases=tuple(tests[:n_public]), hidden_test_cases=tuple(tests[n_public:]),
                   params=params, reference_cpu_s=round(c.cpu_s, 6))
    return ValidationOutcome(True, task, task_id=task.task_id, kill_ratio=ratio)
