"""The loop with self-play on: the embedded model proposes code-reasoning tasks and solves them for a few
iterations, and the store shows proposer updates, learnability rewards from the weights that proposed, league use
a collapse response (greedy sampling makes every task's samples alike, so collapse fires) and a past solver's
difficulty estimates for the new tasks of the iterations that consult the league."""

import json
import sqlite3

import pytest
import torch
from safetensors.torch import load_file

from spade.store.db import DB_NAME
from tests.pipeline.conftest import spade

SELFPLAY_RUN = """
evolution: {coevolve_every: 2, window: 8, patience: 1}
generation: {tasks_per_iteration: 3, families: [cr_deduction, cr_abduction], public_tests: 2, hidden_tests: 3}
sampling: {sampling_n: 2, max_new_tokens: 64, batch_size: 8, temperature: 0.0}
training: {batch_size: 2, steps_per_update: 1, epochs: 0, max_examples: 4, max_seq_len: 384}
eval: {every: 0}
executor: {workers: 2}
selfplay: {enabled: true, proposer_share: 0.67, proposer_period: 1, proposer_min_reward: -0.1,
           proposer_min_examples: 1, league_every: 2, proposals_per_slot: 2,
           league_share: 0.34, collapse_distinct: 1.0, collapse_iterations: 1, complete_inputs: true,
           modes: {deduction: 1, abduction: 1, induction: 1}}
"""


@pytest.mark.slow
def test_the_policy_proposes_solves_and_learns_as_proposer(tmp_path):
    config = tmp_path / "selfplay.yaml"
    config.write_text(SELFPLAY_RUN)
    run_dir = tmp_path / "run"
    done = spade("run", "--config", str(config), "--run-dir", str(run_dir), "--iterations", "3", timeout=3000)
    assert done.returncode == 0, done.stderr[-3000:]
    with sqlite3.connect(run_dir / DB_NAME) as db:
        proposals = db.execute("SELECT iteration, checkpoint, valid, task_id, solve_rate, learnability, reward"
                               " FROM proposals").fetchall()
        audit = db.execute("SELECT iteration, kind, result, model FROM audit WHERE kind IN"
                           " ('proposer_update', 'league', 'collapse', 'past_solver', 'past_proposer')").fetchall()
        estimates = db.execute("SELECT a.result, t.json FROM audit a JOIN tasks t ON t.task_id = a.ref"
                               " WHERE a.kind = 'past_solver' AND a.result LIKE 'past solve rate%'").fetchall()
        metrics = dict(((i, n), v) for i, n, v in db.execute("SELECT iteration, name, value FROM metrics"
                                                             " WHERE name LIKE 'selfplay/%'"))
        kinds = {json.loads(t)["kind"] for (t,) in db.execute("SELECT json FROM tasks WHERE task_id IN"
                                                             " (SELECT task_id FROM proposals)")}
    # Proposals from every iteration, each naming the weights that made it; admitted ones are solved and rewarded
    # by learnability from those rollouts.
    assert {p[0] for p in proposals} == {0, 1, 2}
    # Iteration 0 (no league yet): the proposer's two slots of three tasks, two prompts each.
    assert sum(p[0] == 0 for p in proposals) == 4
    assert len({p[1] for p in proposals}) >= 2 and all(p[1] for p in proposals)
    admitted = [p for p in proposals if p[3] is not None]
    assert admitted and kinds == {"code_reasoning"}
    for _, _, valid, _, rate, learn, reward in admitted:
        assert valid and rate is not None
        assert learn == pytest.approx(1 - rate if 0 < rate < 1 else 0.0) and reward == pytest.approx(learn)
    assert all(p[6] == -0.5 for p in proposals if not p[2])  # invalid proposals pay the invalid penalty
    # The proposer role was trained on its proposals with the solver's trainer.
    updates = [a for a in audit if a[1] == "proposer_update" and a[2].startswith("RFT on")]
    assert updates, audit
    assert max(v for (i, n), v in metrics.items() if n == "selfplay/proposer_updates_total") >= 1
    # Greedy samples are alike (two prompt variants at most): collapse fires, the next iteration samples hotter and
    # consults the league, which brings back the earlier weights' admitted proposals the solver failed.
    collapses = [a for a in audit if a[1] == "collapse"]
    assert collapses and "temperature 0.00 -> 0.30" in collapses[0][2]
    first = collapses[0][0]
    if first < 2:
        assert metrics[(first + 1, "selfplay/temperature")] == pytest.approx(0.3)
        assert metrics[(first + 1, "selfplay/league_consulted")] == 1.0
        failed_before = [p for p in admitted if p[0] <= first and p[4] < 0.5]
        league = [a for a in audit if a[1] == "league" and a[0] == first + 1]
        assert bool(league) == bool(failed_before), (league, failed_before)
    # In an iteration that consults the league, the oldest kept checkpoint (the base, ckpt 0) answers its new tasks:
    # each gets a difficulty estimate naming that checkpoint, and the solver's gain over it is a metric.
    consulted = {i for (i, n), v in metrics.items() if n == "selfplay/league_consulted" and v == 1.0}
    assert consulted
    for i in consulted:
        past = [a for a in audit if a[1] == "past_solver" and a[0] == i]
        assert past and all(a[3] == "checkpoints/ckpt-00000000" and "difficulty estimate" in a[2] for a in past), past
        assert (i, "selfplay/past_solver_pass_rate") in metrics and (i, "selfplay/solver_minus_past") in metrics
        # The same past checkpoint proposes part of the iteration's prompts with its own adapter; each proposal
        # names the weights that wrote it.
        assert [a[2] for a in audit if a[1] == "past_proposer" and a[0] == i] == ["proposes 50% of the prompts"]
        by = {p[1] for p in proposals if p[0] == i}
        assert "checkpoints/ckpt-00000000" in by and len(by) == 2, by
    # A task the past solver answered is stored (and so observed and rewarded) at its calibrated difficulty: the
    # claimed level counted as past_solver_prior (2) answers beside the past solver's two.
    assert estimates
    for result, text in estimates:
        task = json.loads(text)
        rate = task["provenance"]["past_solve_rate"]
        want = round((2 * task["provenance"]["claimed_difficulty"] + 2 * (1 - rate)) / 4, 4)
        assert task["difficulty"] == pytest.approx(want) and f"used {want:.2f}" in result, (result, task)
    # `spade status --json` sums the run up from the same tables.
    shown = json.loads(spade("status", str(run_dir), "--json").stdout)["selfplay"]
    assert shown["proposals"] == len(proposals) and shown["admitted"] == len(admitted)
    assert shown["past_estimates"] == sum(1 for a in audit if a[1] == "past_solver" and "estimate" in a[2])
    assert shown["league_tasks"] == sum(1 for a in audit if a[1] == "league") and shown["collapses"] == len(collapses)
    for name in ("proposer_validity", "distinct_per_100", "near_duplicate_rate", "pass_rate/source/proposer",
                 "league_tasks", "distinct_completions", "proposer_share", "inputs_completed_share"):
        assert any(n == f"selfplay/{name}" for (_, n) in metrics), name


@pytest.mark.slow
def test_a_frozen_copy_proposes_and_catches_up_every_generator_refresh_updates(tmp_path):
    """Two copies: with generator_refresh 2 the base's copy proposes in iterations 0 and 1 while the solver has
    moved on, and iteration 2 takes the policy's latest checkpoint."""
    config = tmp_path / "two.yaml"
    config.write_text(SELFPLAY_RUN.replace("induction: 1}}", "induction: 1},\n"
                                           "           generator_refresh: 2, past_solver_samples: 0,"
                                           " past_proposer_share: 0}"))
    run_dir = tmp_path / "run"
    done = spade("run", "--config", str(config), "--run-dir", str(run_dir), "--iterations", "3", timeout=3000)
    assert done.returncode == 0, done.stderr[-3000:]
    with sqlite3.connect(run_dir / DB_NAME) as db:
        named = dict(db.execute("SELECT iteration, checkpoint FROM proposals GROUP BY iteration"))
        refreshes = db.execute("SELECT iteration, ref FROM audit WHERE kind = 'generator_refresh'"
                               " ORDER BY iteration").fetchall()
        held = {i: json.loads(state)["checkpoint"] for i, state in db.execute("SELECT iteration, state"
                                                                             " FROM iterations")}
    assert [i for i, _ in refreshes] == [0, 2], refreshes
    assert refreshes[0][1] == named[0] == named[1] == "checkpoints/ckpt-00000000"
    assert held[0] != named[1]  # iteration 1's solver held newer weights than the copy that proposed
    assert named[2] == refreshes[1][1] == held[1]  # then the copy caught up with the policy's latest weights
    assert (run_dir / "generator" / "adapter").is_dir()


@pytest.mark.slow
def test_two_learners_the_generator_trains_an_adapter_of_its_own(tmp_path):
    """selfplay.generator_learner: the generator starts from the base checkpoint, proposes with its own adapter and
    learns from its proposals' learnability alone; the solver's checkpoints never hold its training."""
    config = tmp_path / "learners.yaml"
    config.write_text(SELFPLAY_RUN.replace("induction: 1}}", "induction: 1},\n"
                                           "           generator_learner: true, past_proposer_share: 0}"))
    run_dir = tmp_path / "run"
    done = spade("run", "--config", str(config), "--run-dir", str(run_dir), "--iterations", "3", timeout=3000)
    assert done.returncode == 0, done.stderr[-3000:]
    with sqlite3.connect(run_dir / DB_NAME) as db:
        updates = db.execute("SELECT iteration, ref, result FROM audit WHERE kind = 'proposer_update'"
                             " AND result LIKE 'generator RFT on%' ORDER BY iteration").fetchall()
        named = db.execute("SELECT DISTINCT iteration, checkpoint FROM proposals ORDER BY iteration").fetchall()
    assert updates, "the generator never trained"
    first = updates[0]
    assert first[1].startswith("generator_learner/ckpt-") and "started from checkpoints/ckpt-00000000" in first[2]
    # Before its first update the generator is the base checkpoint; after it, its own checkpoint proposes.
    assert named[0] == (0, "checkpoints/ckpt-00000000")
    assert any(i > first[0] and c.startswith("generator_learner/") for i, c in named), named
    [own] = sorted((run_dir / "generator_learner").glob("ckpt-*"))
    mine = load_file(own / "adapter" / "adapter_model.safetensors")
    for solver in sorted((run_dir / "checkpoints").glob("ckpt-*")):
        assert not json.loads((solver / "state.json").read_text())["extra"].get("proposer_update")
        theirs = load_file(solver / "adapter" / "adapter_model.safetensors")
        assert any(not torch.equal(mine[k], theirs[k]) for k in mine), solver.name
