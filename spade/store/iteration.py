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


@dataclass(frozen=True, slots=True)
class ProposalRecord:
    """One task the policy proposed in self-play (spade.selfplay): the weights that proposed it (`checkpoint`, None
    for the base model), the mode it was asked in, the validated task (None when invalid, with `reason`), its
    similarity to the nearest recent proposal, the solver's solve rate on it, its learnability and reward, and the
    proposer prompt (JSON) and completion the proposer role is trained on."""

    proposal_id: str
    iteration: int
    checkpoint: str | None
    model: str
    mode: str
    task_id: str | None
    valid: bool
    reason: str
    similarity: float
    solve_rate: float | None
    learnability: float
    reward: float
    prompt: str
    completion: str


@dataclass(frozen=True, slots=True)
class ProposalReward:
    """A proposal's reward once the solver's answers on its task are reported (spade.env): written over the row's
    solve rate, learnability and reward, only while its solve rate is still unknown."""

    proposal_id: str
    solve_rate: float
    learnability: float
    reward: float


@dataclass(frozen=True, slots=True)
class RunState:
    """What the next iteration (a resumed run, the environment's next report) restores, as committed with one
    iteration. Each component owns its part's JSON (Controller.to_state, EvalGate.state)."""

    controller: dict[str, Any] | None = None
    checkpoint: str | None = None  # relative to the run directory: the weights the policy holds
    gate: dict[str, Any] | None = None
    env_reports: int = 0  # reports committed through the environment API (spade.env)
    selfplay: dict[str, Any] | None = None  # spade.selfplay's mix, league and collapse state

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"controller": self.controller, "checkpoint": self.checkpoint, "gate": self.gate}
        if self.env_reports:
            out["env"] = {"reports": self.env_reports}
        if self.selfplay is not None:
            out["selfplay"] = self.selfplay
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunState:
        """The stored JSON; keys an older run lacks keep their defaults."""
        return cls(controller=data.get("controller"), checkpoint=data.get("checkpoint"), gate=data.get("gate"),
                   env_reports=int((data.get("env") or {}).get("reports", 0)), selfplay=data.get("selfplay"))


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
    proposals: list[ProposalRecord] = field(default_factory=list)
    proposal_rewards: list[ProposalReward] = field(default_factory=list)  # for proposals made earlier
    state: RunState = field(default_factory=RunState)  # after this iteration

    def tasks_of(self, origin: Origin) -> list[Task]:
        return [t.task for t in self.tasks if t.origin == origin]

    @property
    def all_tasks(self) -> list[Task]:
        return [t.task for t in self.tasks]
