"""Contamination by behaviour: a generated task whose reference answers an evaluation task (its expected values on
all its inputs) is kept out of training however it is worded, and counted in `spade status`."""

from __future__ import annotations

import json

import pytest

from spade.config import SpadeConfig
from spade.curriculum import Controller
from spade.dedup import DedupIndex
from spade.dedup.behaviour import MATCHES_NAME, REASON, BehaviourIndex
from spade.evaluate.contamination import contamination_screen
from spade.evaluate.suites import load_suite
from spade.generate.procedural import draft_task
from spade.kinds import validate_drafts
from spade.pipeline.stages import Engine, make_tasks
from spade.pipeline.status import status_command, summarise
from spade.records import Task
from spade.sandbox import SandboxPool
from spade.store import IterationWrite, RunStore


@pytest.fixture(scope="module")
def pool():
    with SandboxPool(SpadeConfig.model_validate({"executor": {"workers": 2}}).executor) as p:
        yield p


def _primes(pool, difficulties, seed=0):
    cfg = SpadeConfig.model_validate({"executor": {"workers": 2}})
    drafts = [draft_task("primes", d, seed, i, 3, 5) for i, d in enumerate(difficulties)]
    return [o.task for o in validate_drafts(drafts, pool, cfg.generation) if o.accepted]


def test_generated_primality_tasks_pass_the_wording_check_but_not_the_behaviour_check(pool):
    builtin = load_suite("builtin")
    tasks = [t for t in _primes(pool, [0.0] * 6) if "-> bool" in t.signature]
    assert tasks
    wording = DedupIndex.from_tasks(builtin)
    assert not any(wording.check(t).duplicate for t in tasks)  # what the loop checked before
    matches = BehaviourIndex({"builtin": builtin}).screen(tasks, pool)
    assert {m.task_id for m in matches} == {t.task_id for t in tasks}
    assert {m.eval_id for m in matches} == {"builtin/is_prime"}


def test_a_task_that_answers_no_evaluation_task_is_kept(pool):
    twins = [t for t in _primes(pool, [0.9] * 8, seed=3) if t.signature.endswith("list[list[int]]:")]
    assert twins  # twin prime pairs: no built-in task returns them
    assert BehaviourIndex({"builtin": load_suite("builtin")}).screen(twins, pool) == []


def test_a_constant_evaluation_task_is_never_matched(pool):
    from dataclasses import replace

    from spade.records import TestCase

    task = _primes(pool, [0.0])[0]
    constant = replace(task, task_id="eval/constant", test_cases=(TestCase((4,), False), TestCase((6,), False)),
                       hidden_test_cases=())
    assert BehaviourIndex({"x": [constant]}).screen([task], pool) == []


def test_the_loop_leaves_contaminated_tasks_out_and_status_counts_them(tmp_path, pool, capsys):
    cfg = SpadeConfig.model_validate({"generation": {"families": ["primes"], "tasks_per_iteration": 6},
                                      "evolution": {"initial_difficulty": 0.0, "difficulty_low": 0.0}, "executor": {"workers": 2}})
    store = RunStore(tmp_path, create=True)
    screen = contamination_screen(tmp_path, {"builtin": load_suite("builtin")})
    e = Engine(cfg=cfg, store=store, pool=pool, policy=None, trainer=None,
               controller=Controller(cfg.evolution, ["primes"]), dedup=DedupIndex(), eval_tasks=[],
               families=["primes"], screen=screen)
    w = IterationWrite(iteration=0)
    tasks = make_tasks(e, w)
    rejected = [r for r in w.rejections if r.reason == REASON]
    assert rejected  # is_prime at the lowest difficulty: most draws answer builtin/is_prime
    assert not any("-> bool" in t.signature for t in tasks)
    recorded = [json.loads(line) for line in (tmp_path / MATCHES_NAME).read_text().splitlines()]
    assert {r["task_id"] for r in recorded} >= {r.draft_id for r in rejected}
    assert {r["eval_id"] for r in recorded} <= {"builtin/is_prime", "builtin/count_primes_below"}
    store.commit_iteration(w)
    assert summarise(store).rejected_by_reason[REASON] == len(rejected)
    store.close()
    status_command(str(tmp_path))
    assert f"{REASON}" in capsys.readouterr().out


def test_an_in_distribution_task_a_trained_task_answers_is_kept_for_training_and_left_out_of_the_eval(tmp_path, pool):
    from dataclasses import replace

    from spade.dedup.behaviour import ContaminationScreen
    from spade.evaluate.commands import drop_run_tasks
    from spade.kinds import validate_drafts

    by_id = {t.task_id: t for t in load_suite("builtin")}
    answered = replace(by_id["builtin/is_prime"], task_id="heldout/is_prime-x", description="Is n a prime?")
    other = replace(by_id["builtin/gcd"], task_id="heldout/gcd-x")
    RunStore(tmp_path, create=True).close()
    screen = ContaminationScreen(BehaviourIndex({"heldout": [answered, other]}), reserved=[],
                                 path=tmp_path / MATCHES_NAME)
    cfg = SpadeConfig.model_validate({"executor": {"workers": 2}})
    outcomes = validate_drafts([draft_task("primes", 0.0, 0, i, 3, 5) for i in range(3)], pool, cfg.generation)
    kept = screen.exclude(outcomes, pool)
    assert [o.accepted for o in kept] == [o.accepted for o in outcomes]  # in-distribution: still trained on
    assert screen.matched == {"heldout/is_prime-x"}
    left = drop_run_tasks("heldout", [answered, other], tmp_path, cfg.generation.dedup_threshold)
    assert [t.task_id for t in left] == ["heldout/gcd-x"]


def test_the_environment_draws_no_task_that_answers_an_evaluation_task(tmp_path, capsys):
    """spade.env's supply (what TRL/verl users train on) had no behaviour screen: primes at the lowest difficulty
    handed out is_prime tasks that answer builtin/is_prime."""
    from spade.config import load_config
    from spade.env import Environment

    cfg = load_config(None, {"generation.families": ["primes"], "generation.tasks_per_iteration": 6,
                             "evolution.initial_difficulty": 0.0, "evolution.difficulty_low": 0.0,
                             "evolution.replay_ratio": 0.0, "executor.workers": 2})
    with Environment.open(tmp_path / "run", cfg) as env:
        drawn = env.draw(6) + env.draw(6)
    assert not any("-> bool" in d.task.signature for d in drawn)
    store = RunStore(tmp_path / "run")
    assert summarise(store).rejected_by_reason[REASON] > 0
    store.close()
    assert (tmp_path / "run" / MATCHES_NAME).exists()


def _table_task(target: Task) -> Task:
    """A training task whose reference holds `target`'s pairs in a table (a proposal steering the screen)."""
    table = {repr(t.args): t.expected for t in target.all_tests}
    code = f"T = {table!r}\n\ndef lookup(n):\n    return T.get(repr((n,)), 0)\n"
    return Task(task_id="steer", description="Look n up.", signature="def lookup(n: int) -> int:",
                entry_point="lookup", difficulty=0.3, family="external", test_cases=target.test_cases,
                hidden_test_cases=target.hidden_test_cases, reference_solution=code)


def test_a_reference_that_stores_an_eval_tasks_pairs_leaves_it_in_the_evaluation(tmp_path, pool):
    """issue 70: a proposal whose reference held a dev task's pairs in a string table got that task dropped from
    the run's evaluation. The match is recorded, but only a reference that computes the task drops it."""
    from dataclasses import replace

    from spade.dedup.behaviour import ContaminationScreen, read_matches
    from spade.validate.outcome import ValidationOutcome

    by_id = {t.task_id: t for t in load_suite("builtin")}
    target = replace(by_id["builtin/is_prime"], task_id="heldout/is_prime-x")
    screen = ContaminationScreen(BehaviourIndex({"heldout": [target]}), reserved=[], path=tmp_path / MATCHES_NAME)
    steer = _table_task(target)
    kept = screen.exclude([ValidationOutcome(True, steer, task_id=steer.task_id)], pool)
    assert kept[0].accepted
    rows = [json.loads(line) for line in (tmp_path / MATCHES_NAME).read_text().splitlines()]
    assert rows == [{"task_id": "steer", "suite": "heldout", "eval_id": "heldout/is_prime-x", "drops": False}]
    assert screen.matched == set() and read_matches(tmp_path / MATCHES_NAME) == []


def test_a_rejected_task_that_matches_a_reserved_suite_leaves_that_task_in_the_evaluation(tmp_path, pool):
    """A training task that answers HumanEval is rejected; the HumanEval task is still graded."""
    from dataclasses import replace

    from spade.dedup.behaviour import ContaminationScreen, read_matches
    from spade.validate.outcome import ValidationOutcome

    by_id = {t.task_id: t for t in load_suite("builtin")}
    target = replace(by_id["builtin/is_prime"], task_id="humaneval/x")
    screen = ContaminationScreen(BehaviourIndex({"humaneval": [target]}), reserved=["humaneval"],
                                 path=tmp_path / MATCHES_NAME)
    steer = _table_task(target)
    kept = screen.exclude([ValidationOutcome(True, steer, task_id=steer.task_id)], pool)
    assert not kept[0].accepted and kept[0].reasons == (REASON,)
    assert read_matches(tmp_path / MATCHES_NAME) == []


def test_status_counts_the_eval_tasks_a_run_leaves_out(tmp_path, capsys):
    RunStore(tmp_path, create=True).close()
    (tmp_path / MATCHES_NAME).write_text(
        json.dumps({"task_id": "a", "suite": "heldout", "eval_id": "heldout/x", "drops": True}) + "\n" +
        json.dumps({"task_id": "b", "suite": "heldout", "eval_id": "heldout/x", "drops": True}) + "\n" +
        json.dumps({"task_id": "c", "suite": "heldout", "eval_id": "heldout/y", "drops": False}) + "\n")
    store = RunStore(tmp_path)
    assert summarise(store).eval_tasks_dropped == 1
    store.close()
    status_command(str(tmp_path))
    assert "eval tasks left out" in capsys.readouterr().out
