"""Grade answers as `spade run` does, on its one grading path (spade.rollout): extract, screen, run, reward.

In: (task, answer text, whether the prompt ended inside the opening fence) triples, a sandbox pool and the reward
config. Out: one `Graded` per answer, in order. A bad answer is data (a verdict and a reward), never an exception.
"""

from __future__ import annotations

import atexit
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from spade.config import RewardConfig, SpadeConfig, load_config
from spade.records import ExecResult, Reward, Task


@dataclass(frozen=True, slots=True)
class Answer:
    """One answer to grade: the text after the prompt; `prefilled` when the prompt ended with the opening fence."""

    task: Task
    text: str
    prefilled: bool = True


@dataclass(frozen=True, slots=True)
class Graded:
    """An answer graded: the code taken from it, the screen's findings, the sandbox verdict and the reward."""

    answer: Answer
    code: str
    findings: tuple[str, ...]
    result: ExecResult
    reward: Reward

    @property
    def passed(self) -> bool:
        return self.result.passed

    def summary(self) -> dict[str, float]:
        """Numbers a trainer can log per answer (verl's reward_extra_info, OpenRLHF's extra_logs)."""
        return {
            "score": self.reward.total,
            "acc": float(self.passed),
            "pass_fraction": self.reward.pass_fraction,
            "hidden_score": self.result.hidden_score,
            "hardcoding_suspected": float(self.reward.hardcoding_suspected),
            "no_code": float(not self.code),
            "timed_out": float(self.result.timed_out),
        }


def grade(pool: Any, cfg: RewardConfig, answers: Sequence[Answer]) -> list[Graded]:
    """Grade every answer over the pool in parallel on the one grading path (spade.rollout); the order of
    `answers` is kept."""
    from spade.records import Completion
    from spade.rollout import Grader

    grader = Grader(pool, cfg)
    graded: list[Graded | None] = [None] * len(answers)
    for prefilled in (True, False):
        idx = [i for i, a in enumerate(answers) if a.prefilled is prefilled]
        if not idx:
            continue
        rollouts = grader.grade([answers[i].task for i in idx], [Completion(answers[i].text) for i in idx],
                                ids=[f"{answers[i].task.task_id}:answer:{i}" for i in idx], prefilled=prefilled)
        for i, r in zip(idx, rollouts):
            graded[i] = Graded(answers[i], r.candidate.code, r.findings, r.result, r.reward)
    return [g for g in graded if g is not None]


_lock = threading.Lock()
_shared: dict[str, Any] = {}


def shared_pool() -> tuple[Any, SpadeConfig]:
    """This process's sandbox pool and config (env SPADE_CONFIG, a YAML path, else the defaults), started on first
    use: trainers import reward functions in worker processes SPADE does not own. A forked child starts its own."""
    with _lock:
        if _shared.get("pid") != os.getpid():
            from spade.sandbox.backend import open_pool

            cfg = load_config(os.environ.get("SPADE_CONFIG") or None)
            pool, pid = open_pool(cfg.executor), os.getpid()
            _shared.update(cfg=cfg, pool=pool, pid=pid)
            atexit.register(lambda: os.getpid() == pid and pool.close())
        return _shared["pool"], _shared["cfg"]


def grade_shared(answers: Sequence[Answer], reward: RewardConfig | None = None) -> list[Graded]:
    """`grade` over the process's shared pool; `reward` overrides the config's reward section."""
    pool, cfg = shared_pool()
    return grade(pool, reward or cfg.reward, answers)
