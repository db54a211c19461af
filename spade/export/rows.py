"""What a run holds for export: every rollout joined with its task, execution verdict and reward.

In: an open `RunStore`. Out: `Rollout` records in commit order (candidates x executions x rewards x tasks),
and the run's tasks. Only SQL and record building here; the formats live in `formats.py`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from spade.records import Task
from spade.store import RunStore
from spade.taskio import task_from_dict

_ROLLOUTS = (
    "SELECT c.candidate_id, c.task_id, c.iteration, c.completion, c.code, c.prompt_variant, e.status, e.score,"
    " r.total, t.json FROM candidates c JOIN executions e USING(candidate_id) JOIN rewards r USING(candidate_id)"
    " JOIN tasks t ON t.task_id = c.task_id ORDER BY c.iteration, c.rowid"
)


@dataclass(frozen=True, slots=True)
class Rollout:
    """One sampled answer as stored: the completion after the prefilled fence, its code, verdict and reward."""

    candidate_id: str
    task: Task
    iteration: int
    completion: str
    code: str
    prompt_variant: int
    status: str
    score: float
    reward: float

    @property
    def passed(self) -> bool:
        return self.status == "passed"


def read_rollouts(store: RunStore) -> list[Rollout]:
    """Every rollout of the run, oldest first; tasks are parsed once each."""
    tasks: dict[str, Task] = {}
    rollouts = []
    for cid, task_id, iteration, completion, code, variant, status, score, reward, task_json in store.query(_ROLLOUTS):
        task = tasks.get(task_id)
        if task is None:
            task = tasks[task_id] = task_from_dict(json.loads(task_json), f"{store.path}: task {task_id}")
        rollouts.append(Rollout(cid, task, int(iteration), completion, code, int(variant), status, float(score),
                                float(reward)))
    return rollouts


def read_tasks(store: RunStore) -> list[Task]:
    """Every task the run accepted, in the order it was first stored."""
    return list(store.tasks())
