"""Tool-call answers through the one grading path (spade.rollout.Grader) and the evaluator: the reference plan and
its OpenAI tool_calls form pass; a wrong tool, a missing argument, a wrong value or a hard-coded id fail; text that
holds no plan is a format failure."""

from __future__ import annotations

import json

import pytest

from spade.config import RewardConfig
from spade.evaluate.evaluator import grade_samples
from spade.kinds import kind_of
from spade.kinds.tool_call.examples import EXAMPLES
from spade.kinds.tool_call.judge import parse_plan
from spade.policy.prompts import build_prompt
from spade.records import Completion, ExecStatus, Task, TestStatus
from spade.rollout import Grader


def _grade(pool, task, answers):
    completions = [Completion(a) for a in answers]
    return Grader(pool, RewardConfig()).grade([task] * len(answers), completions, ids=[str(i) for i in range(len(answers))],
                                             prefilled=False)


def _plan(*calls):
    return "```json\n" + json.dumps([{"name": n, "arguments": a} for n, a in calls]) + "\n```"


def _calls(task):
    return parse_plan(task.reference_solution)


def test_the_prompt_shows_the_tools_as_openai_json_and_the_reference_syntax(shop_task):
    prompt = build_prompt(shop_task)
    user = prompt.messages[-1]["content"]
    tools = [json.loads(line) for line in user.split("one a line):\n")[1].split("\n\n")[0].splitlines()]
    assert {t["function"]["name"] for t in tools} == {n.strip() for n in shop_task.signature.split(",")}
    assert all(t["type"] == "function" and t["function"]["parameters"]["type"] == "object" for t in tools)
    assert '"$0.id"' in user and prompt.prefill == '```json\n[\n  {"name": "'
    assert user.rstrip().endswith(shop_task.description.strip())  # the request comes last
    assert len({build_prompt(shop_task, v).hash for v in range(3)}) == 3


def test_the_prompt_works_an_example_with_the_first_offered_tool(shop_task):
    user = build_prompt(shop_task).messages[-1]["content"]
    first = next(n.strip() for n in shop_task.signature.split(","))
    request, arguments = EXAMPLES[first]
    shown = json.loads(user.split(f'the request "{request}" is answered with:\n```json\n', 1)[1].split("```")[0])
    assert shown == [{"name": first, "arguments": arguments}]


def test_the_right_plan_passes_in_either_answer_shape_and_wrong_ones_fail(pool, shop_task):
    (find, find_args), (order, order_args) = _calls(shop_task)
    openai = {"tool_calls": [{"id": f"call_{i}", "type": "function",
                              "function": {"name": n, "arguments": json.dumps(a)}}
                             for i, (n, a) in enumerate(_calls(shop_task))]}
    answers = [
        "Here is the plan:\n" + _plan(*_calls(shop_task)) + "\nDone.",
        "```json\n" + json.dumps(openai) + "\n```",
        json.dumps([{"name": n, "parameters": a} for n, a in _calls(shop_task)]),  # another common spelling
        "\n".join(json.dumps({"name": n, "arguments": a}) for n, a in _calls(shop_task)),  # one call a line, no list
        _plan((find, find_args), ("list_orders", {"user_id": "$0.id"})),  # wrong tool
        _plan((find, find_args), (order, {k: v for k, v in order_args.items() if k != "quantity"})),  # missing
        _plan((find, find_args), (order, {**order_args, "quantity": order_args["quantity"] + 1})),  # wrong value
    ]
    rollouts = _grade(pool, shop_task, answers)
    assert [r.passed for r in rollouts] == [True, True, True, True, False, False, False]
    assert rollouts[0].reward.total > 1.0 and rollouts[4].reward.total == 0.0
    missing = rollouts[5].result
    assert missing.status is ExecStatus.FAILED and all(t.status is TestStatus.WRONG_ANSWER for t in missing.tests)
    assert "lacks the required argument 'quantity'" in missing.tests[0].error
    assert rollouts[6].result.tests[0].got and "quantity" in rollouts[6].result.tests[0].got


def test_a_plan_that_hard_codes_the_looked_up_id_fails_the_hidden_tests(pool, shop_task):
    state = shop_task.test_cases[0].args[0]
    (find, find_args), (order, order_args) = _calls(shop_task)
    user_id = next(u["id"] for u in state["users"] if u["email"] == find_args["email"])
    hard_coded = _plan((find, find_args), (order, {**order_args, "user_id": user_id}))
    rollout = _grade(pool, shop_task, [hard_coded])[0]
    assert rollout.result.tests[0].status is TestStatus.PASSED and not rollout.passed
    assert rollout.result.hidden_score < 1.0


@pytest.mark.parametrize("text", ["I would call find_user and then create_order.", "```json\n```", "```json\n[1, 2\n```",
                                  "```json\n{\"tool\": \"x\"}\n```", "```json\n[]\n```"])
def test_text_without_a_plan_is_a_format_failure(pool, shop_task, text):
    rollout = _grade(pool, shop_task, [text])[0]
    assert not rollout.passed
    assert rollout.result.status in (ExecStatus.SYNTAX_ERROR, ExecStatus.NO_ENTRY_POINT)
    assert rollout.reward.format_penalty == RewardConfig().format_penalty


def test_extraction_takes_the_fenced_plan_or_a_bare_one():
    task = Task("t", "d", "kv_get", "tool_calls", 0.5, kind="tool_call")
    extract = kind_of(task).extract

    assert extract(task, 'kv_get", "arguments": {"key": "a"}}]\n```\nThat is all.') == \
        '[\n  {"name": "kv_get", "arguments": {"key": "a"}}]'  # continuing the prefill
    assert extract(task, 'Sure: [{"name": "kv_list"}] ok', prefilled=False) == '[{"name": "kv_list"}]'
    assert extract(task, '```\n{"name": "kv_list"}\n```', prefilled=False) == '{"name": "kv_list"}'
    assert extract(task, "kv_list\"}, {\"na", prefilled=True) == "[\n  {\"name\": \"kv_list\"}, {\"na"  # cut off: judged
    assert extract(task, "no plan here", prefilled=False) == ""


def test_a_server_answer_that_opens_the_list_itself_is_not_glued_to_the_prefill():
    task = Task("t", "d", "kv_get", "tool_calls", 0.5, kind="tool_call")
    extract = kind_of(task).extract
    server = '[\n  {"name": "kv_list"}\n]\n```'  # a chat server's answer, its own opening fence dropped
    assert extract(task, server) == '[\n  {"name": "kv_list"}\n]'
    assert extract(task, '  {"name": "kv_list"}\n```') == '{"name": "kv_list"}'
    assert extract(task, 'kv_list"}\n]\n```') == '[\n  {"name": "kv_list"}\n]'  # a continued prefill still is


def test_the_evaluator_grades_tool_call_samples(pool, shop_task, tmp_path):
    samples = tmp_path / "samples.jsonl"
    right = _plan(*_calls(shop_task))
    lines = [right, "no idea", _plan(_calls(shop_task)[0])]
    samples.write_text("".join(json.dumps({"task_id": shop_task.task_id, "completion": c}) + "\n" for c in lines))
    report = grade_samples(pool, [shop_task], samples, ks=(1,), suite="tools").to_dict()
    assert report["n_tasks"] == 1 and report["pass_at_k"]["1"] == pytest.approx(1 / 3)
