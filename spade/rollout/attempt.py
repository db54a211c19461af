"""One iteration's attempts: N answers per task sampled from the policy, each graded on the one grading path.

In: the tasks, a policy, a `Grader`, how many answers per task and at what temperature, the iteration and its
sampling seed. Out: one `Rollout` per answer, task by task; candidate ids are `<task_id>:<iteration>:<k>`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from spade.records import Rollout, Task
from spade.rollout.grade import Grader
from spade.timing import Stamp, stamp

if TYPE_CHECKING:
    from spade.policy.base import Policy

Progress = Callable[[str, int, int], None]  # (stage, done, total)
Timed = Callable[[str, Stamp], None]  # (stage, when it started)


def attempt(policy: Policy, grader: Grader, tasks: Sequence[Task], *, n: int, temperature: float | None, seed: int,
            iteration: int, progress: Progress, timed: Timed) -> list[Rollout]:
    """Sample (stage 'sample'), then extract, screen, execute and reward every answer (stage 'execute')."""
    if not tasks:
        return []
    started = stamp()
    completions = policy.sample(tasks, n, temperature=temperature, seed=seed,
                                on_progress=lambda d, t: progress("sample", d, t))
    timed("sample", started)
    flat = [(task, c, f"{task.task_id}:{iteration}:{k}") for task, outs in zip(tasks, completions)
            for k, c in enumerate(outs)]
    started = stamp()
    done = iter(range(1, len(flat) + 1))
    rollouts = grader.grade([t for t, _, _ in flat], [c for _, c, _ in flat], ids=[i for _, _, i in flat],
                            model=policy.name, on_done=lambda _i: progress("execute", next(done), len(flat)))
    timed("execute", started)
    return rollouts
