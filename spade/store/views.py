"""The store's named read views of one run's database, shaped for plots, diagnoses and status (the report, the
doctor and `spade status` share them).

In: an open `RunStore`. Out: a frozen `RunView` of per-iteration series, per-task outcomes, rejections, evals,
rollbacks and audit findings. Every field is present (empty) for a run with no iterations yet.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass

from spade.audit.result import event_counts, finding_counts
from spade.store.db import RunStore
from spade.store.proposals import SelfplaySummary, selfplay_summary

Series = list[tuple[int, float]]  # (iteration, value), oldest first


@dataclass(frozen=True)
class TaskOutcome:
    """One task's claimed difficulty against the policy's measured pass rate on it."""

    task_id: str
    family: str
    claimed: float
    attempts: int
    passed: int
    proposer: str = "procedural"  # provenance source, with the LLM proposer's mode: "llm:code_first"
    kind: str = "python_function"  # the task kind (spade.kinds)

    @property
    def measured(self) -> float:
        """Measured difficulty: 1 - the share of the policy's attempts that passed."""
        return 1.0 - self.passed / self.attempts if self.attempts else 1.0


@dataclass(frozen=True)
class EvalPoint:
    iteration: int
    suite: str  # "builtin@start" is the baseline before any update; its base name is "builtin"
    pass_at_k: dict[str, float]

    @property
    def base_suite(self) -> str:
        return self.suite.split("@", 1)[0]


@dataclass(frozen=True)
class RunView:
    run_dir: str
    iterations: int
    metrics: dict[str, Series]
    rollbacks: tuple[tuple[int, str], ...]  # (iteration, reason)
    evals: tuple[EvalPoint, ...]
    rejections: dict[str, int]  # reason -> count
    accepted_tasks: int
    duplicate_accepted: int  # accepted tasks whose description and signature repeat an earlier accepted task
    rewards: tuple[float, ...]
    tasks: tuple[TaskOutcome, ...]
    screen_findings: dict[str, int]  # finding code -> audit rows carrying it
    sandbox_events: dict[str, int]  # event the sandbox observed (file_access, socket, …) -> audit rows carrying it
    audited: int
    diversity: Series  # per iteration: mean over tasks of distinct extracted codes / samples
    selfplay: SelfplaySummary | None = None  # when anything was proposed (spade.selfplay)

    def series(self, name: str) -> Series:
        return self.metrics.get(name, [])

    @property
    def drafts(self) -> int:
        """Every draft the generator produced: accepted plus rejected for any reason."""
        return self.accepted_tasks + sum(self.rejections.values())

    def families(self) -> list[str]:
        return sorted(n.split("/", 1)[1] for n in self.metrics if n.startswith("difficulty/"))


def load_view(store: RunStore) -> RunView:
    """Read everything the report and the doctor need in a handful of queries."""
    metrics: dict[str, Series] = defaultdict(list)
    for it, name, value in store.query("SELECT iteration, name, value FROM metrics ORDER BY iteration, name"):
        metrics[name].append((int(it), float(value)))
    audit_rows = store.query("SELECT result FROM audit")
    return RunView(
        run_dir=str(store.run_dir),
        iterations=store.last_iteration() + 1,
        metrics=dict(metrics),
        rollbacks=_rollbacks(store, metrics.get("rollback", [])),
        evals=_evals(store),
        rejections=dict(store.query("SELECT reason, COUNT(*) FROM rejections GROUP BY reason ORDER BY 2 DESC, 1")),
        accepted_tasks=store.query("SELECT COUNT(*) FROM tasks")[0][0],
        duplicate_accepted=store.query(
            "SELECT COALESCE(SUM(n - 1), 0) FROM (SELECT COUNT(*) AS n FROM tasks"
            " GROUP BY json_extract(json, '$.description'), json_extract(json, '$.signature'))")[0][0],
        rewards=tuple(float(r) for (r,) in store.query("SELECT total FROM rewards")),
        tasks=task_outcomes(store),
        screen_findings=finding_counts(r for (r,) in audit_rows),
        sandbox_events=event_counts(r for (r,) in audit_rows),
        audited=len(audit_rows),
        diversity=_diversity(store),
        selfplay=selfplay_summary(store),
    )


def _rollbacks(store: RunStore, metric: Series) -> tuple[tuple[int, str], ...]:
    """Rollbacks recorded either in an update's JSON ({"rollback": true, "reason": …}) or as metric rollback = 1."""
    found: dict[int, str] = {}
    for it, text in store.query("SELECT iteration, json FROM updates ORDER BY iteration"):
        update = json.loads(text)
        if isinstance(update, dict) and update.get("rollback"):
            found[int(it)] = str(update.get("reason") or "rollback")
    for it, value in metric:
        if value >= 1 and it not in found:
            found[it] = "rollback (metric)"
    return tuple(sorted(found.items()))


def _evals(store: RunStore) -> tuple[EvalPoint, ...]:
    rows = store.query("SELECT iteration, suite, json FROM evals ORDER BY iteration, rowid")
    return tuple(EvalPoint(int(it), suite, {str(k): float(v) for k, v in json.loads(text).get("pass_at_k", {}).items()})
                 for it, suite, text in rows)


def task_outcomes(store: RunStore) -> tuple[TaskOutcome, ...]:
    rows = store.query(
        "SELECT t.task_id, COALESCE(t.family, 'external'), t.difficulty, COUNT(e.candidate_id),"
        " COALESCE(SUM(e.status = 'passed'), 0), COALESCE(json_extract(t.json, '$.provenance.source'), 'file'),"
        " json_extract(t.json, '$.provenance.mode'), COALESCE(json_extract(t.json, '$.kind'), 'python_function')"
        " FROM tasks t JOIN candidates c ON c.task_id = t.task_id"
        " JOIN executions e ON e.candidate_id = c.candidate_id GROUP BY t.task_id ORDER BY t.rowid"
    )
    return tuple(TaskOutcome(tid, fam, float(d), int(n), int(p), f"{src}:{mode}" if mode else str(src), str(kind))
                 for tid, fam, d, n, p, src, mode, kind in rows)


def _diversity(store: RunStore) -> Series:
    """Distinct extracted programs per (task, iteration), as a share of the samples: 1 = all different."""
    rows = store.query(
        "SELECT iteration, AVG(share) FROM (SELECT iteration, task_id, 1.0 * COUNT(DISTINCT code) / COUNT(*) AS share"
        " FROM candidates GROUP BY iteration, task_id HAVING COUNT(*) > 1) GROUP BY iteration ORDER BY iteration"
    )
    return [(int(it), float(v)) for it, v in rows]


# -- named reads for `spade status`, the loop, metrics.jsonl and the exporters ---------------------------------------
def run_counts(store: RunStore) -> dict[str, float]:
    """The run's counters: tasks accepted, rejected and replayed, rollouts, pass rate, mean reward, hard-coding
    suspicions, updates and rollbacks."""
    one = lambda sql: store.query(sql)[0][0]  # noqa: E731
    return {
        "tasks_accepted": one("SELECT COUNT(*) FROM tasks"),
        "tasks_rejected": one("SELECT COUNT(*) FROM rejections"),
        "tasks_replayed": one("SELECT COUNT(*) FROM task_uses WHERE origin = 'replay'"),
        "rollouts": one("SELECT COUNT(*) FROM executions"),
        "pass_rate": one("SELECT COALESCE(AVG(status = 'passed'), 0) FROM executions"),
        "mean_reward": one("SELECT COALESCE(AVG(total), 0) FROM rewards"),
        "hardcoding_suspected": one("SELECT COALESCE(SUM(hardcoding_suspected), 0) FROM rewards"),
        "updates": update_count(store),
        "rollbacks": one("SELECT COUNT(*) FROM metrics WHERE name = 'rollback'"),
    }


def update_count(store: RunStore) -> int:
    """Policy updates committed so far (skipped ones included)."""
    return int(store.query("SELECT COUNT(*) FROM updates")[0][0])


@dataclass(frozen=True)
class Filed:
    """What is already stored under one iteration's number before it is committed (the environment's draws)."""

    tasks: int
    rejections: int


def filed_under(store: RunStore, iteration: int) -> Filed:
    tasks, rejections = store.query("SELECT (SELECT COUNT(*) FROM tasks WHERE iteration = ?),"
                                    " (SELECT COUNT(*) FROM rejections WHERE iteration = ?)", (iteration, iteration))[0]
    return Filed(int(tasks), int(rejections))


def rejections_by_reason(store: RunStore) -> dict[str, int]:
    return dict(store.query("SELECT reason, COUNT(*) FROM rejections GROUP BY reason ORDER BY 2 DESC"))


def latest_evals(store: RunStore) -> list[dict]:
    """The latest stored evaluation of each suite, by suite name."""
    rows = store.query("SELECT e.json FROM evals e WHERE e.iteration = (SELECT MAX(iteration) FROM evals f"
                       " WHERE f.suite = e.suite) ORDER BY e.suite")
    return [json.loads(row[0]) for row in rows]


def pass_curve(store: RunStore) -> list[tuple[int, float, float]]:
    """(iteration, pass rate, mean reward), oldest first."""
    return [tuple(r) for r in store.query(
        "SELECT p.iteration, p.value, r.value FROM metrics p JOIN metrics r USING(iteration)"
        " WHERE p.name = 'pass_rate' AND r.name = 'mean_reward' ORDER BY p.iteration")]


def metric_rows(store: RunStore) -> list[tuple[int, str, float]]:
    """Every metric, by iteration then name."""
    return [tuple(r) for r in store.query("SELECT iteration, name, value FROM metrics ORDER BY iteration, name")]


def rollout_rows(store: RunStore) -> list[tuple]:
    """Every rollout joined with its verdict, reward and task JSON, in commit order: (candidate_id, task_id,
    iteration, completion, code, prompt_variant, status, score, reward total, task JSON)."""
    return store.query(
        "SELECT c.candidate_id, c.task_id, c.iteration, c.completion, c.code, c.prompt_variant, e.status, e.score,"
        " r.total, t.json FROM candidates c JOIN executions e USING(candidate_id) JOIN rewards r USING(candidate_id)"
        " JOIN tasks t ON t.task_id = c.task_id ORDER BY c.iteration, c.rowid"
    )
