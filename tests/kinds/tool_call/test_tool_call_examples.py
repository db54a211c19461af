"""The worked examples a tool-call prompt shows: one per simulated tool, each a valid call of that tool, and never a
task's answer (their values lie outside every family's pools)."""

from __future__ import annotations

import json

import pytest

from spade.generate.procedural import draft_task
from spade.generate.registry import family_names, get_family
from spade.kinds.tool_call.examples import EXAMPLES, example_for
from spade.kinds.tool_call.judge import PlanError, check_plan
from spade.kinds.tool_call.simtools import TOOLS


def test_every_tool_has_an_example_and_every_example_names_a_tool():
    assert set(EXAMPLES) == set(TOOLS)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_each_example_is_a_valid_call_of_its_tool(name):
    check_plan([(name, EXAMPLES[name][1])], TOOLS)


def test_a_wrong_example_would_be_caught():
    with pytest.raises(PlanError):
        check_plan([("get_weather", {"town": "Cairo"})], TOOLS)


def test_example_for_takes_the_first_offered_tool_that_has_one():
    assert example_for(["no_such_tool", "kv_get"]) == (EXAMPLES["kv_get"][0], {"name": "kv_get",
                                                                              "arguments": EXAMPLES["kv_get"][1]})
    assert example_for(["no_such_tool"]) is None


def test_no_example_call_is_a_drafted_tasks_answer():
    examples = {json.dumps({"name": n, "arguments": a}, sort_keys=True) for n, (_, a) in EXAMPLES.items()}
    for family in (f for f in family_names() if get_family(f).kind == "tool_call"):
        for level in (0.0, 0.5, 1.0):
            for index in range(20):
                draft = draft_task(family, level, 5, index, 3, 5)
                calls = {json.dumps(c, sort_keys=True) for c in json.loads(draft.reference_solution)}
                assert not calls & examples, (family, level, index)
