"""STaR's rationalisation: for tasks the policy never solved, sample again with the reference shown as a hint and
keep only the hinted answers that then pass every test, as answers to the plain prompt.

In: an iteration's tasks and graded rollouts, the policy, the grading path. Out: `Rationales`, passing `Sample`s
of the unsolved tasks (each graded on the task itself, hidden tests included) for the RFT buffer, and counts. The
hint is in the task's description only while sampling; training pairs the answer with the prompt without it.
It learns from the generator's references rather than from the policy alone (bench/efficacy.py reports an arm
with it and one without). `reference_answers` (training.references) goes further: the references themselves (of the
unsolved tasks, or of every task sampled), as answers to the plain prompt, with no hinted sampling.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol

from spade.records import PYTHON_FUNCTION, Completion, Rollout, Task
from spade.train.buffer import Sample

if TYPE_CHECKING:
    from spade.rollout import Grader

HINT = ("\n\nA correct solution is shown below as a hint. Write the function yourself, in your own words:\n"
        "```python\n{reference}\n```")


class _Sampler(Protocol):
    def sample(self, tasks: Sequence[Task], n: int, *, temperature: float | None = None,
               seed: int = 0) -> list[list[Completion]]: ...


@dataclass(frozen=True, slots=True)
class Rationales:
    samples: tuple[Sample, ...] = ()  # passing hinted answers, one per distinct completion
    hinted: int = 0  # unsolved tasks sampled with a hint
    solved: int = 0  # of those, tasks with at least one passing hinted answer


def unsolved(tasks: Sequence[Task], rollouts: Sequence[Rollout]) -> list[Task]:
    """Python function tasks with a reference that had rollouts this iteration and none passed, in task order."""
    return sampled(tasks, rollouts, include_solved=False)


def sampled(tasks: Sequence[Task], rollouts: Sequence[Rollout], *, include_solved: bool = True) -> list[Task]:
    """Python function tasks with a reference that had rollouts this iteration, in task order, each once;
    include_solved=False keeps only those none of whose rollouts passed."""
    tried: dict[str, bool] = {}
    for r in rollouts:
        tried[r.task_id] = tried.get(r.task_id, False) or r.passed
    seen: set[str] = set()
    out = []
    for t in tasks:
        if t.task_id in tried and (include_solved or not tried[t.task_id]) and t.kind == PYTHON_FUNCTION \
                and t.reference_solution and t.task_id not in seen:
            seen.add(t.task_id)
            out.append(t)
    return out


def reference_answers(tasks: Sequence[Task], rollouts: Sequence[Rollout], *, every: bool = False) -> tuple[Sample, ...]:
    """The references of the unsolved tasks (every=True: of every task sampled this iteration) as passing answers
    to their plain prompts (training.references unsolved / all): the code as the policy would write it after the
    prompt's opening fence, then the closing fence. A reference passed its task's tests when the task was
    validated, so it is not graded again."""
    return tuple(Sample(t.task_id, t.reference_solution.strip("\n") + "\n```", t.reference_solution, True, 0)
                 for t in sampled(tasks, rollouts, include_solved=every))  # these tasks all have a reference


def hinted(task: Task) -> Task:
    """The task with its reference appended to the description (what the policy is shown while rationalising)."""
    assert task.reference_solution is not None
    return replace(task, description=task.description.rstrip() + HINT.format(reference=task.reference_solution.strip()))


def rationalize(policy: _Sampler, grader: Grader, tasks: Sequence[Task], rollouts: Sequence[Rollout], *, n: int,
                temperature: float, seed: int, model: str = "") -> Rationales:
    """Hinted samples of every unsolved task, graded on the task itself; the passing ones as Samples."""
    todo = unsolved(tasks, rollouts)
    if not todo:
        return Rationales()
    completions = policy.sample([hinted(t) for t in todo], n, temperature=temperature, seed=seed)
    flat = [(t, c, f"{t.task_id}:hint:{k}") for t, outs in zip(todo, completions) for k, c in enumerate(outs)]
    graded = grader.grade([t for t, _, _ in flat], [c for _, c, _ in flat], ids=[i for _, _, i in flat], model=model)
    kept: dict[tuple[str, str], Sample] = {}
    for r in graded:
        if r.passed:
            kept.setdefault((r.task_id, r.candidate.completion),
                            Sample(r.task_id, r.candidate.completion, r.candidate.code, True,
                                   r.candidate.prompt_variant))
    return Rationales(tuple(kept.values()), len(todo), len({s.task_id for s in kept.values()}))
