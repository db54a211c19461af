"""Build real run databases (RunStore + IterationWrite + real records) shaped to show one pattern each.

`Shape` says, per iteration, what the run looked like; `build_run` writes it the way the loop does, deriving the
loop's metrics from the rollouts it stored. Used by tests/doctor and tests/report.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from spade.records import (
    AuditEntry,
    Candidate,
    Decision,
    EvalReport,
    ExecResult,
    ExecStatus,
    Rejection,
    Reward,
    Rollout,
    Task,
    TestCase,
    TestOutcome,
    TestStatus,
    UpdateResult,
)
from spade.store import IterationTask, IterationWrite, RunStore

FAMILIES = ("sorting", "digits")


@dataclass
class Shape:
    iterations: int = 9
    tasks: int = 4  # generated per iteration
    samples: int = 4
    pass_rate: Callable[[int], float] = lambda i: 0.5
    timeout_share: Callable[[int], float] = lambda i: 0.0
    difficulty: Callable[[int, str], float] = lambda i, f: round(0.2 + 0.05 * i, 4)  # rising steadily
    distinct: Callable[[int], int] = lambda i: 4  # distinct programs among one task's samples
    eval_pass: Callable[[int], float] | None = lambda i: 0.3 + 0.02 * i
    rejections: Callable[[int], list[str]] = lambda i: ["weak_tests"] if i % 3 == 0 else []
    duplicate_descriptions: bool = False
    parse_failure: Callable[[int], float] | None = None
    rollbacks: dict[int, str] = field(default_factory=dict)  # iteration -> reason, stored in the update JSON
    rollback_metric: tuple[int, ...] = ()  # iterations with metric rollback = 1
    screen: Callable[[int, int], str] = lambda i, k: ""  # audit result suffix for candidate k of iteration i


def _task(i: int, j: int, difficulty: float, family: str, same: bool) -> Task:
    text = "Return the list sorted." if same else f"Task {i}.{j}: return x plus {i * 100 + j}."
    return Task(task_id=f"t{i}_{j}", description=text, signature="def f(x: int) -> int:", entry_point="f",
                difficulty=difficulty, family=family, test_cases=(TestCase((1,), 2),),
                hidden_test_cases=(TestCase((2,), 3), TestCase((3,), 4)))


def _result(status: TestStatus) -> ExecResult:
    outcome = ExecStatus.PASSED if status is TestStatus.PASSED else \
        ExecStatus.TIMEOUT if status is TestStatus.TIMEOUT else ExecStatus.FAILED
    tests = tuple(TestOutcome(k, k > 0, status) for k in range(3))
    return ExecResult(outcome, tests, cpu_time_s=0.01, peak_memory_kb=9000, wall_time_s=0.02)


def _rollouts(shape: Shape, i: int, tasks: list[Task], w: IterationWrite) -> None:
    n = len(tasks) * shape.samples
    n_pass, n_timeout = round(shape.pass_rate(i) * n), round(shape.timeout_share(i) * n)
    order = list(range(n))
    random.Random(i).shuffle(order)  # spread passes over tasks, so measured difficulty varies per task
    k = 0
    for task in tasks:
        for s in range(shape.samples):
            rank = order[k]
            status = TestStatus.PASSED if rank < n_pass else TestStatus.TIMEOUT if rank < n_pass + n_timeout \
                else TestStatus.WRONG_ANSWER
            code = f"def f(x):\n    return x + {s % max(shape.distinct(i), 1)}\n"
            cand = Candidate(f"{task.task_id}:{i}:{s}", task.task_id, f"```python\n{code}```", code, "smollm2",
                             "h" * 8)
            passed = status is TestStatus.PASSED
            reward = Reward(total=1.0 + 0.3 * task.difficulty if passed else 0.0, pass_fraction=float(passed))
            w.rollouts.append(Rollout(cand, _result(status), reward))
            suffix = shape.screen(i, k)
            w.audit.append(AuditEntry("candidate", cand.candidate_id, "smollm2", "h" * 8,
                            status.value + (f"|screen:{suffix}" if suffix else "")))
            k += 1


def _metrics(shape: Shape, i: int, w: IterationWrite) -> dict[str, float]:
    n = len(w.rollouts)
    m = {
        "tasks_accepted": float(len(w.tasks)), "tasks_rejected": float(len(w.rejections)), "rollouts": float(n),
        "pass_rate": sum(r.passed for r in w.rollouts) / n,
        "mean_reward": sum(r.reward.total for r in w.rollouts) / n,
        "timeout_share": sum(r.result.timed_out for r in w.rollouts) / n,
        "hardcoding_suspected": 0.0,
    }
    for fam in FAMILIES:
        m[f"difficulty/{fam}"] = shape.difficulty(i, fam)
    if shape.parse_failure is not None:
        m["generator_parse_failure_rate"] = shape.parse_failure(i)
    if i in shape.rollback_metric:
        m["rollback"] = 1.0
    for ev in w.evals:
        m[f"eval/{ev.suite}/pass@1"] = ev.pass_at_k[1]
    return m


def _eval(suite: str, pass_at_1: float) -> EvalReport:
    return EvalReport(suite, 0, 1, {1: pass_at_1}, {}, ())


def iteration(shape: Shape, i: int) -> IterationWrite:
    w = IterationWrite(iteration=i, started_at=1_700_000_000.0 + 60 * i)
    tasks = [_task(i, j, shape.difficulty(i, FAMILIES[j % 2]), FAMILIES[j % 2], shape.duplicate_descriptions)
             for j in range(shape.tasks)]
    w.tasks = [IterationTask(t, "generated") for t in tasks]
    w.audit = [AuditEntry("task", t.task_id, f"procedural:{t.family}", "", "accepted") for t in tasks]
    w.rejections = [Rejection(f"d{i}_{k}", FAMILIES[0], 0.3, reason, reason)
                    for k, reason in enumerate(shape.rejections(i))]
    _rollouts(shape, i, tasks, w)
    if shape.eval_pass is not None:
        if i == 0:
            w.evals.append(_eval("builtin@start", shape.eval_pass(-1)))
        w.evals.append(_eval("builtin", shape.eval_pass(i)))
    w.update = UpdateResult(loss_last=1.0 / (i + 1), checkpoint=f"checkpoints/it{i:05d}")
    if i in shape.rollbacks:
        w.update = replace(w.update, rollback=True, reason=shape.rollbacks[i])
    w.decisions = [Decision(i, fam, shape.difficulty(i - 1, fam), shape.difficulty(i, fam), 0.5, 8, 1, "test")
                   for fam in FAMILIES if i and shape.difficulty(i, fam) != shape.difficulty(i - 1, fam)]
    w.metrics = _metrics(shape, i, w)
    return w


def build_run(run_dir: Path, shape: Shape) -> Path:
    """Write a run shaped like `shape` into `run_dir` (a real run database) and return the directory."""
    with RunStore(run_dir, create=True) as store:
        for i in range(shape.iterations):
            store.commit_iteration(iteration(shape, i))
    return run_dir
