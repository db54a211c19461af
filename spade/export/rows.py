"""What a run holds for export: every rollout joined with its task, execution verdict and reward.

In: an open `RunStore`. Out: `ExportRow` records in commit order (candidates x executions x rewards x tasks),
and the run's tasks, read through the store's views; the formats live in `formats.py`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from spade.records import ExecStatus, Task
from spade.store import RunStore
from spade.store.views import rollout_rows
from spade.taskio import task_from_dict


@dataclass(frozen=True, slots=True)
class ExportRow:
    """One rollout as the exports read it back from the store (not spade.records.Rollout, the grading path's record):
    the completion after the prefilled fence, its code, verdict and reward total."""

    candidate_id: str
    task: Task
    iteration: int
    completion: str
    code: str
    prompt_variant: int
    status: ExecStatus
    score: float
    reward: float

    @property
    def passed(self) -> bool:
        return self.status is ExecStatus.PASSED


def read_rows(store: RunStore) -> list[ExportRow]:
    """Every rollout of the run, oldest first; tasks are parsed once each."""
    tasks: dict[str, Task] = {}
    rows = []
    for cid, task_id, iteration, completion, code, variant, status, score, reward, task_json in rollout_rows(store):
        task = tasks.get(task_id)
        if task is None:
            task = tasks[task_id] = task_from_dict(json.loads(task_json), f"{store.path}: task {task_id}")
        rows.append(ExportRow(cid, task, int(iteration), completion, code, int(variant), ExecStatus(status),
                              float(score), float(reward)))
    return rows


def read_tasks(store: RunStore) -> list[Task]:
    """Every task the run accepted, in the order it was first stored."""
    return list(store.tasks())
