"""`spade status` and `spade report` show self-play over the run: proposals (validity, admitted, duplicates,
learnability), proposer updates, league use, collapse responses, past-solver estimates and the solver's pass rate
per source and mode, all read from the store."""

from __future__ import annotations

import json

import pytest

from spade.pipeline.status import status_command, summarise
from spade.records import (
    AuditEntry,
    Candidate,
    ExecResult,
    ExecStatus,
    Reward,
    Rollout,
    Task,
    TestCase,
    TestOutcome,
    TestStatus,
)
from spade.report import write_report
from spade.store import IterationTask, IterationWrite, ProposalRecord, RunStore
from spade.store.proposals import selfplay_summary

PROMPT = '{"task_id": "p", "difficulty": 0.3, "examples": [], "mode": "deduction"}'


def _task(task_id: str, mode: str | None) -> Task:
    if mode is None:
        return Task(task_id, "d", "def g(x: int) -> int:", "g", 0.3, test_cases=(TestCase((1,), 1),),
                    family="sorting")
    return Task(task_id, "d", "def f(x)", "f", 0.3, reference_solution="def f(x):\n    return x\n",
                params={"mode": mode}, kind="code_reasoning", family=f"selfplay_{mode}")


def _proposal(pid: str, iteration: int, task_id: str | None, valid: bool, rate: float | None) -> ProposalRecord:
    learn = 1 - rate if rate is not None and 0 < rate < 1 else 0.0
    return ProposalRecord(pid, iteration, "checkpoints/ckpt-00000000", "m", "deduction", task_id, valid,
                          "ok" if task_id else ("duplicate_exact" if valid else "no_inputs"), 1.0 if valid else 0.0,
                          rate, learn, learn if valid else -0.5, PROMPT, f"x): {pid}")


def _rollouts(task: Task, iteration: int, passes: list[bool]) -> list[Rollout]:
    out = []
    for k, passed in enumerate(passes):
        status = TestStatus.PASSED if passed else TestStatus.WRONG_ANSWER
        result = ExecResult(ExecStatus.PASSED if passed else ExecStatus.FAILED, (TestOutcome(0, False, status),),
                            0.01, 9000, 0.02)
        out.append(Rollout(Candidate(f"{task.task_id}:{iteration}:{k}", task.task_id, "x", "x", "m", "h"), result,
                           Reward(total=float(passed), pass_fraction=float(passed))))
    return out


def _run(tmp_path):
    a, b, proc = _task("t-ded", "deduction"), _task("t-abd", "abduction"), _task("t-proc", None)
    with RunStore(tmp_path, create=True) as store:
        assert selfplay_summary(store) is None  # nothing proposed: no self-play section
        w = IterationWrite(0, tasks=[IterationTask(a, "generated"), IterationTask(proc, "generated")])
        w.proposals = [_proposal("p0", 0, "t-ded", True, 0.25), _proposal("p1", 0, None, False, None)]
        w.rollouts = _rollouts(a, 0, [True, False, False, False]) + _rollouts(proc, 0, [True, True])
        w.audit = [AuditEntry("proposer_update", "checkpoints/ckpt-00000001", "m", "", "RFT on 1 proposals"),
                   AuditEntry("collapse", "iteration-0", "m", "", "distinct completions 0.40 < 0.5")]
        store.commit_iteration(w)
        w = IterationWrite(1, tasks=[IterationTask(b, "generated")])
        w.proposals = [_proposal("p2", 1, "t-abd", True, 1.0), _proposal("p3", 1, None, True, None)]
        w.rollouts = _rollouts(b, 1, [True, True]) + _rollouts(a, 1, [False, False])  # t-ded back from the league
        w.audit = [AuditEntry("league", "t-ded", "checkpoints/ckpt-00000000", "", "re-entered: the solver fails it"),
                   AuditEntry("past_solver", "t-abd", "checkpoints/ckpt-00000000", "",
                              "past solve rate 0.50 (2 answers): difficulty estimate 0.50"),
                   AuditEntry("proposer_update", "iteration-1", "m", "", "skipped: no proposal above 0")]
        w.metrics = {"selfplay/league_consulted": 1.0, "selfplay/solver_minus_past": 0.5}
        store.commit_iteration(w)
    return tmp_path


def test_the_summary_counts_proposals_league_collapse_and_past_solvers(tmp_path):
    with RunStore(_run(tmp_path), read_only=True) as store:
        s = selfplay_summary(store)
    assert s is not None
    assert (s.proposals, s.valid, s.admitted, s.distinct_admitted) == (4, 3, 2, 2)
    assert s.mean_learnability == pytest.approx((0.75 + 0.0) / 2)
    assert (s.proposer_updates, s.league_consults, s.league_tasks, s.collapses) == (1, 1, 1, 1)
    assert (s.past_estimates, s.solver_minus_past) == (1, pytest.approx(0.5))
    # t-ded's iteration-1 rollouts count for the league, its iteration-0 ones for the proposer.
    assert s.pass_by_source == {"league": (0.0, 2), "procedural": (1.0, 2), "proposer": (pytest.approx(0.5), 6)}
    assert s.pass_by_mode == {"abduction": (1.0, 2), "deduction": (pytest.approx(1 / 6), 6)}
    rows = dict(s.rows())
    assert rows["  valid (validity rate)"] == "3 (0.75)" and rows["  near-duplicate rate (of valid)"] == "0.33"


def test_status_and_the_report_show_self_play(tmp_path, capsys):
    run = _run(tmp_path)
    with RunStore(run, read_only=True) as store:
        assert summarise(store).selfplay["league_tasks"] == 1
    assert status_command(str(run), as_json=True) == 0
    assert json.loads(capsys.readouterr().out)["selfplay"]["past_estimates"] == 1
    assert status_command(str(run)) == 0
    out = capsys.readouterr().out
    assert "self-play" in out and "past-solver difficulty estimates" in out and "mode abduction" in out
    html = write_report(run).read_text()
    assert "<h2>Self-play</h2>" in html and "league consulted / tasks brought back" in html
