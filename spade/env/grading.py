"""Grade answers as `spade run` does: extract the code, screen it, run it in the sandbox, reward it.

In: (task, answer text, whether the prompt ended inside the opening fence) triples, a sandbox pool and the reward
config. Out: one `Graded` per answer, in order. A bad answer is data (a verdict and a reward), never an exception.
"""

from __future__ import annotations

import atexit
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
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
        return self.result.status.value == "passed"

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
    """Grade every answer over the pool in parallel; the order of `answers` is kept."""
    from spade.audit import screen_code
    from spade.policy.extract import extract_code
    from spade.reward import compute_reward

    codes = [extract_code(a.text, a.task.entry_point, prefilled=a.prefilled) for a in answers]
    findings = [screen_code(code) for code in codes]  # before execution, as the loop's audit does
    # Empty code goes to the sandbox too: it comes back a no-entry-point verdict, scored as a format failure.
    results = pool.score_many([(a.task, code) for a, code in zip(answers, codes)])
    graded = []
    for answer, code, found, result in zip(answers, codes, findings, results):
        if found:
            result = replace(result, events=result.events + tuple(f"screen:{f}" for f in found))
        graded.append(Graded(answer, code, found, result, compute_reward(answer.task, code, result, cfg)))
    return graded


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
