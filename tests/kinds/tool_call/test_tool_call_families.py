"""The family contract through the real sandbox: every tool-call family at several difficulties drafts tasks that
validation accepts, with expected values taken from running the reference plan on each test's state; drafting is
deterministic and the difficulty knobs change what is asked."""

from __future__ import annotations

import json

import pytest

from spade.config import GenerationConfig
from spade.generate.procedural import draft_task
from spade.generate.registry import get_family
from spade.kinds import KINDS, validate_drafts
from spade.kinds.tool_call.families import FAMILIES
from spade.kinds.tool_call.judge import parse_plan
from spade.kinds.tool_call.run import decode_reply, judge_job
from spade.kinds.tool_call.simtools import TOOLS, offered

NAMES = [f.name for f in FAMILIES]
DIFFICULTIES = (0.0, 0.4, 0.7, 1.0)


def test_the_kind_and_its_families_are_registered():
    assert "tool_call" in KINDS.names()
    assert len(NAMES) >= 4 and all(n.startswith("tool_call_") for n in NAMES)
    assert all(get_family(n).kind == "tool_call" for n in NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_every_family_drafts_tasks_validation_accepts_with_expected_values_from_the_run(pool, name):
    drafts = [draft_task(name, d, 3, i, 3, 5) for d in DIFFICULTIES for i in range(2)]
    outcomes = validate_drafts(drafts, pool, GenerationConfig())
    for draft, outcome in zip(drafts, outcomes):
        assert outcome.accepted, (draft.task_id, outcome.reasons, outcome.details)
        task = outcome.task
        assert task.kind == "tool_call" and set(offered(task.signature, task.params)) <= set(TOOLS)
        assert outcome.kill_ratio is not None and outcome.kill_ratio >= GenerationConfig().mutant_kill_ratio
        assert len(task.test_cases) == 3 and len(task.hidden_test_cases) >= 1
        assert all(set(c.expected) == {"answer", "state"} for c in task.all_tests)
    # The expected values are what the judge gives for the reference on each state, run again here.
    task = outcomes[-1].task
    run = pool.run_program(judge_job(offered(task.signature, task.params), [task.reference_solution],
                                     [c.args[0] for c in task.all_tests], [0]))
    assert decode_reply(run, 1, len(task.all_tests))[0]["outcomes"] == [c.expected for c in task.all_tests]


@pytest.mark.parametrize("name", NAMES)
def test_drafting_is_deterministic_and_states_differ_between_tests(name):
    a, b = draft_task(name, 0.6, 11, 4, 3, 5), draft_task(name, 0.6, 11, 4, 3, 5)
    assert a == b
    states = [json.dumps(s, sort_keys=True) for s in a.public_inputs + a.hidden_inputs]
    assert len(set(states)) == len(states)


def test_difficulty_raises_the_offered_tools_and_the_plan_length():
    def knobs(name, d):
        return [draft_task(name, d, 0, i, 1, 1).params for i in range(12)]

    for name in NAMES:
        easy, hard = knobs(name, 0.0), knobs(name, 1.0)
        assert sum(k["n_tools"] for k in hard) > sum(k["n_tools"] for k in easy) + 24, name
    for name in ("tool_call_kv", "tool_call_calendar", "tool_call_shop", "tool_call_convert"):
        assert max(k["plan_length"] for k in knobs(name, 0.0)) == 1
        assert min(k["plan_length"] for k in knobs(name, 1.0)) >= 2 and all(k["dependent"] for k in knobs(name, 1.0))
    assert max(k["plan_length"] for k in knobs("tool_call_kv", 1.0)) == 3
    assert max(k["n_args"] for k in knobs("tool_call_calendar", 0.5)) == 5 > max(
        k["n_args"] for k in knobs("tool_call_calendar", 0.0))


def test_a_dependent_reference_refers_to_an_earlier_result():
    draft = draft_task("tool_call_shop", 0.9, 0, 0, 1, 1)
    calls = parse_plan(draft.reference_solution)
    assert [c for c, _ in calls] == ["find_user", "create_order", "list_orders"]
    assert calls[1][1]["user_id"] == "$0.id" and calls[2][1]["user_id"] == "$0.id"
