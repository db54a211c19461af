"""What one iteration hands the store: an `IterationWrite` of typed records, committed in one transaction
(spade.store.db.RunStore.commit_iteration / commit_next)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Literal

from spade.records import AuditEntry, Decision, EvalReport, Rejection, Rollout, Task, UpdateResult

Origin = Literal["generated", "replay"]  # a task new to the run, or one it attempted before


@dataclass(frozen=True, slots=True)
class IterationTask:
    """A task this iteration attempts: a generated one is stored with it, a replayed one is already stored."""

    task: Task
    origin: Origin


@dataclass(frozen=True, slots=True)
class TaskUse:
    """A use of a task stored earlier (by id): the environment's draws store their tasks before any report."""

    task_id: str
    origin: Origin


@dataclass
class IterationWrite:
    """Everything one iteration produced; written by `RunStore.commit_iteration` in one transaction."""

    iteration: int
    started_at: float = field(default_factory=time.time)
    tasks: list[IterationTask] = field(default_factory=list)
    task_uses: list[TaskUse] = field(default_factory=list)
    rejections: list[Rejection] = field(default_factory=list)
    rollouts: list[Rollout] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)
    metrics: dict[str, float] = field(default_factory=dict)
    update: UpdateResult | None = None
    evals: list[EvalReport] = field(default_factory=list)
    audit: list[AuditEntry] = field(default_factory=list)
    # The components' states after this iteration, as JSON (controller, checkpoint, gate; the environment's report
    # count): each component owns its state's shape, and a resumed run hands each its own back.
    state: dict[str, Any] = field(default_factory=dict)

    def tasks_of(self, origin: Origin) -> list[Task]:
        return [t.task for t in self.tasks if t.origin == origin]

    @property
    def all_tasks(self) -> list[Task]:
        return [t.task for t in self.tasks]
