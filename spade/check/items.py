"""The pre-flight engineering checklist (docs/method.md#pre-flight-checklist), judged against one config and this host.

In: a `SpadeConfig` and the host's probed facts (`HostFacts`: the isolation layers, a candidate scored twice,
a sound and a broken reference validated in the sandbox, an incomplete task file refused, a run database written
and read back). Out: one `CheckItem` per checklist line, ✓ or ✗, with the config key that changes it. Every line
is measured, from the config or a probe: none is true by construction.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from spade.audit import screen_code
from spade.config import SpadeConfig
from spade.cpus import cpu_limit, usable_cpus
from spade.records import (
    ExecResult,
    ExecStatus,
    Task,
    TestCase,
    TestOutcome,
    TestStatus,
)
from spade.registry import TRAINERS
from spade.reward import compute_reward
from spade.sandbox import IsolationReport

BUILT_IN = "(probed; no config key)"
_HOSTILE = "import os\ndef f(x):\n    return os.system('id')\n"  # what the screen must flag


@dataclass(frozen=True)
class CheckItem:
    stage: str  # the checklist stage the line belongs to
    name: str
    ok: bool
    detail: str
    key: str  # the config key(s) that change the verdict


@dataclass(frozen=True)
class HostFacts:
    isolation: IsolationReport
    deterministic: bool  # the same candidate scored twice got identical verdicts
    determinism_detail: str
    eval_tasks: int  # tasks in the configured evaluation suite (0 when it cannot load)
    validation: tuple[bool, str] = (False, "not probed")  # a sound reference accepted, a raising one rejected
    task_schema: tuple[bool, str] = (False, "not probed")  # an incomplete task file refused, a complete one loaded
    store: tuple[bool, str] = (False, "not probed")  # a run database created, written and read back here


def _layer(facts: HostFacts, name: str) -> tuple[bool, str]:
    layer = facts.isolation.layer(name)
    return layer.active, layer.detail


def task_design(cfg: SpadeConfig, facts: HostFacts) -> list[CheckItem]:
    g = cfg.generation
    return [
        CheckItem("task design", "deterministic executor", facts.deterministic and cfg.executor.mode != "subprocess",
                  f"{facts.determinism_detail}; mode {cfg.executor.mode}; one str hash seed on every worker; "
                  "references run twice, under two hash seeds, and must agree",
                  "executor.mode"),
        CheckItem("task design", "edge-case coverage", g.max_mutants > 0 and g.mutant_kill_ratio > 0,
                  f"up to {g.max_mutants} mutants per reference, tests must catch ≥ {g.mutant_kill_ratio:.0%}, "
                  f"{g.probe_inputs} probe inputs", "generation.max_mutants, generation.mutant_kill_ratio"),
        CheckItem("task design", "reference validation", facts.validation[0],
                  f"{facts.validation[1]}; every reference runs twice, the second time under another str hash seed "
                  f"(limit {g.reference_time_limit_s} s per test)", "generation.reference_time_limit_s"),
    ]


def generation(cfg: SpadeConfig, facts: HostFacts) -> list[CheckItem]:
    g, e = cfg.generation, cfg.evolution
    bounded = 0 < e.difficulty_low < e.difficulty_high < 1
    return [
        CheckItem("environment generation", "JSON completeness", facts.task_schema[0], facts.task_schema[1],
                  BUILT_IN),
        CheckItem("environment generation", "deduplication", g.dedup_threshold < 1.0,
                  f"exact + MinHash near-duplicates at Jaccard ≥ {g.dedup_threshold}" if g.dedup_threshold < 1.0
                  else "threshold 1.0 catches exact duplicates only", "generation.dedup_threshold"),
        CheckItem("environment generation", "difficulty bounds", bounded,
                  f"difficulty kept in [{e.difficulty_low}, {e.difficulty_high}]"
                  + ("" if bounded else "; set bounds strictly inside (0, 1), e.g. 0.2 and 0.9"),
                  "evolution.difficulty_low, evolution.difficulty_high"),
    ]


def sandbox(cfg: SpadeConfig, facts: HostFacts) -> list[CheckItem]:
    x = cfg.executor
    net_ok, net = _layer(facts, "network_off")
    lim_ok, lim = _layer(facts, "rlimits")
    missing = facts.isolation.missing
    return [
        CheckItem("sandbox security", "network off", x.network == "off" and net_ok, net, "executor.network"),
        CheckItem("sandbox security", "memory / CPU limits", lim_ok,
                  f"{lim}; memory {x.memory_limit}, {x.timeout} s per candidate",
                  "executor.memory_limit, executor.timeout"),
        CheckItem("sandbox security", "isolation level", x.isolation != "none" and facts.isolation.meets_level
                  and not missing,
                  f"level {x.isolation}: " + ("all layers active" if not missing else f"missing {', '.join(missing)}"),
                  "executor.isolation"),
    ]


def training_signal(cfg: SpadeConfig, facts: HostFacts) -> list[CheckItem]:
    g = cfg.generation
    return [
        _interpretable(cfg),
        CheckItem("training signal", "hidden tests", g.hidden_tests > 0 and g.min_hidden_share > 0,
                  f"{g.hidden_tests} hidden tests per task, at least {g.min_hidden_share:.0%} of all tests",
                  "generation.hidden_tests, generation.min_hidden_share"),
        CheckItem("training signal", "hard-coding guard", g.min_hidden_share >= 0.5,
                  f"hidden tests decide the pass term and {g.min_hidden_share:.0%}+ of tests are hidden; "
                  "passing only the visible ones is flagged", "generation.min_hidden_share"),
    ]


def evolution(cfg: SpadeConfig, facts: HostFacts) -> list[CheckItem]:
    e, t, v = cfg.evolution, cfg.training, cfg.eval
    trains = t.update_method in TRAINERS
    return [
        CheckItem("evolution control", "controller dead zone", e.patience >= 2,
                  f"no move inside [{e.success_low}, {e.success_high}]; {e.patience} consecutive checks outside "
                  "before a move" + ("" if e.patience >= 2 else " (1 = a single noisy window moves it)"),
                  "evolution.patience"),
        CheckItem("evolution control", "checkpoints", not trains or t.keep_checkpoints >= 1,
                  f"{t.keep_checkpoints} recent checkpoints + the best kept" if trains
                  else f"update_method {t.update_method}: no policy updates to checkpoint",
                  "training.keep_checkpoints"),
        CheckItem("evolution control", "rollback", not trains or v.every >= 1,
                  (f"evaluate every {v.every} updates on {v.gate_suite}, roll back on a fall of > {v.rollback_margin} "
                   f"that a sign test puts beyond noise (p <= {v.rollback_alpha})") if v.every
                  else "eval.every = 0: no evaluations, so nothing can trigger a rollback",
                  "eval.every, eval.gate_suite, eval.rollback_margin, eval.rollback_alpha"),
    ]


def production(cfg: SpadeConfig, facts: HostFacts) -> list[CheckItem]:
    workers = cfg.executor.worker_count
    detail = f"{workers} warm sandbox workers"
    if not cfg.executor.workers:  # one per core this process may use: say what bounded it
        limit = cpu_limit()
        quota = f"; cgroup CPU limit {limit.cores:g}" if limit is not None else ""
        detail += f" (executor.workers 0: one per usable core of {len(usable_cpus())} CPUs{quota})"
    return [
        CheckItem("production", "concurrent sandbox", workers >= 2, detail, "executor.workers"),
        CheckItem("production", "logging and monitoring", facts.store[0],
                  f"{facts.store[1]}; every iteration's metrics, decisions and rollouts go to spade.sqlite and "
                  "metrics.jsonl", BUILT_IN),
        CheckItem("production", "independent eval set", cfg.eval.every >= 1 and facts.eval_tasks > 0,
                  f"suite {cfg.eval.suite!r}: {facts.eval_tasks} fixed tasks, never trained on"
                  + ("" if cfg.eval.every else "; eval.every = 0 disables it"), "eval.suite, eval.every"),
        _audited(cfg),
    ]


_CODE = "def f(x):\n    return x + 1\n"


def _probe_result(events: tuple[str, ...] = (), passed: int = 1) -> tuple[Task, ExecResult]:
    """A probe candidate's verdict on a two-test task: `passed` tests passed, the sandbox's `events` observed."""
    task = Task("check_reward", "Add one.", "def f(x: int) -> int:", "f", 0.5, test_cases=(TestCase((1,), 2),),
                hidden_test_cases=(TestCase((2,), 3),))
    tests = tuple(TestOutcome(i, i > 0, TestStatus.PASSED if i < passed else TestStatus.WRONG_ANSWER)
                  for i in range(2))
    status = ExecStatus.PASSED if passed == 2 else ExecStatus.FAILED
    return task, ExecResult(status, tests, 0.001, 1024, 0.01, 0, events=events)


def _interpretable(cfg: SpadeConfig) -> CheckItem:
    """Probe candidates passing 1 and 2 of 2 tests: the reward must rise with the tests passed."""
    task, half = _probe_result(passed=1)
    _, full = _probe_result(passed=2)
    low, high = (compute_reward(task, _CODE, r, cfg.reward) for r in (half, full))
    ok = high.total > low.total and high.pass_fraction > low.pass_fraction
    return CheckItem("training signal", "interpretable reward", ok,
                     f"terms {', '.join(cfg.reward.terms) or 'none'}, each stored apart; probe candidates passing 1 "
                     f"and 2 of 2 tests get {low.total:.3f} and {high.total:.3f}"
                     + ("" if ok else ": the reward does not follow the tests (add the pass term)"), "reward.terms")


def _audited(cfg: SpadeConfig) -> CheckItem:
    """The screen flags a probe calling the shell, and a finding costs the candidate reward."""
    found = screen_code(_HOSTILE)
    task, flagged = _probe_result(tuple(f"screen:{f}" for f in found))
    _, clean = _probe_result()
    cost = compute_reward(task, _CODE, clean, cfg.reward).total - compute_reward(task, _CODE, flagged, cfg.reward).total
    ok = bool(found) and cost > 0
    return CheckItem("production", "security audit", ok,
                     f"a probe calling the shell is screened as {', '.join(found) or 'nothing'} before it runs and "
                     f"costs {cost:.2f} reward; every task's and candidate's source is in the audit table",
                     "reward.interference_penalty, reward.terms")


SECTIONS: tuple[Callable[[SpadeConfig, HostFacts], list[CheckItem]], ...] = (
    task_design, generation, sandbox, training_signal, evolution, production,
)


def checklist(cfg: SpadeConfig, facts: HostFacts) -> list[CheckItem]:
    return [item for section in SECTIONS for item in section(cfg, facts)]
