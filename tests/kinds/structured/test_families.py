"""The structured families' contract, through the real sandbox: every family at several difficulties drafts
tasks that validation accepts, with expected values taken from judging the reference; drafts are deterministic,
the knobs change what is asked, and the reference scores 1.0 on the grading path."""

from __future__ import annotations

import json

import pytest

from spade.config import GenerationConfig, RewardConfig
from spade.generate.procedural import draft_task
from spade.generate.registry import family_names, get_family, resolve_families
from spade.kinds import validate_drafts
from spade.records import Completion
from spade.rollout import Grader

FAMILIES = ("structured_cluster", "structured_firewall", "structured_jobs", "structured_record", "structured_service")
DIFFICULTIES = (0.0, 0.5, 1.0)


def test_the_structured_families_are_registered_under_the_kind_and_not_drawn_by_default():
    assert set(FAMILIES) <= set(family_names())
    assert all(get_family(f).kind == "structured" for f in FAMILIES)
    assert not {f.name for f in resolve_families([])} & set(FAMILIES)


@pytest.fixture(scope="module")
def validated(pool):
    drafts = [draft_task(f, d, 7, i, 3, 5) for f in FAMILIES for d in DIFFICULTIES for i in range(1)]
    return drafts, validate_drafts(drafts, pool, GenerationConfig())


def test_every_family_at_every_difficulty_validates_with_expected_values_from_the_run(validated):
    drafts, outcomes = validated
    for draft, outcome in zip(drafts, outcomes):
        assert outcome.accepted, (draft.family, draft.difficulty, outcome.reasons, outcome.details)
        task = outcome.task
        assert task.kind == "structured" and task.entry_point in ("json", "yaml")
        assert len(task.all_tests) == len(draft.all_inputs) >= 4
        assert outcome.kill_ratio is not None and outcome.kill_ratio >= 0.6
        for case in task.all_tests:
            if case.args[0]["op"] == "firewall":  # a query: one action per packet, computed by the judge
                assert len(case.expected) == len(case.args[0]["packets"])
                assert set(case.expected) <= {"allow", "deny"}
            else:
                assert case.expected is True


def test_the_hidden_tests_always_hold_the_schema_and_every_implied_constraint(validated):
    _, outcomes = validated
    for task in (o.task for o in outcomes):
        hidden = [case.args[0] for case in task.hidden_test_cases]
        covered = hidden + [c for h in hidden if h["op"] == "all" for c in h["checks"]]
        schema, *implied = task.params["implied"]
        assert schema in hidden, task.task_id
        assert all(c in covered for c in implied), task.task_id


def test_the_reference_scores_one_on_the_grading_path(pool, validated):
    _, outcomes = validated
    tasks = [o.task for o in outcomes]
    completions = [Completion(t.reference_solution + "```\n") for t in tasks]
    rollouts = Grader(pool, RewardConfig()).grade(tasks, completions, ids=[str(i) for i in range(len(tasks))])
    assert [r.result.status.value for r in rollouts] == ["passed"] * len(tasks)
    assert all(r.reward.pass_fraction == 1.0 for r in rollouts)


@pytest.mark.parametrize("family", FAMILIES)
def test_drafts_are_a_pure_function_of_family_difficulty_seed_and_index(family):
    a, b = draft_task(family, 0.6, 3, 11, 3, 5), draft_task(family, 0.6, 3, 11, 3, 5)
    assert a == b
    assert draft_task(family, 0.6, 3, 12, 3, 5).task_id != a.task_id


@pytest.mark.parametrize("family", FAMILIES)
def test_difficulty_moves_from_json_with_the_schema_shown_to_yaml_without_it(family):
    easy, hard = draft_task(family, 0.0, 1, 0, 3, 5), draft_task(family, 1.0, 1, 0, 3, 5)
    assert easy.entry_point == "json" and "JSON Schema" in easy.description
    # structured_record is about the schema itself: it always shows it, and grows it.
    assert hard.entry_point == "yaml" and ("JSON Schema" in hard.description) == (family == "structured_record")
    assert len(json.dumps(hard.params)) > len(json.dumps(easy.params))  # more fields, clauses or constraints
