"""Structured answers on the loop's grading path and in the evaluator: extraction, a right document passes, a
wrong one fails the test it breaks (hidden ones included), no document or an unparseable one is a format failure."""

from __future__ import annotations

import dataclasses
import json

import pytest

from spade.config import RewardConfig
from spade.evaluate.evaluator import grade_samples
from spade.generate.procedural import draft_task
from spade.kinds import kind_of
from spade.policy.prompts import build_prompt
from spade.records import Completion, ExecStatus, Task, TestStatus
from spade.rollout import Grader
from tests.kinds.structured.conftest import GOOD_JSON, GOOD_YAML


def test_the_prompt_states_the_task_and_prefills_the_documents_fence(yaml_task):
    prompt = build_prompt(yaml_task)
    assert prompt.prefill == "```yaml\n"
    assert "Configure the service `web`" in prompt.messages[-1]["content"]
    assert "YAML" in prompt.messages[-1]["content"]
    assert "schema" not in prompt.messages[-1]["content"].lower()  # checks are never shown as checks


@pytest.mark.parametrize("completion, prefilled, expected", [
    ("name: web\nport: 1\n```\nDone.", True, "name: web\nport: 1"),
    ("Here it is:\n```yaml\nname: web\n```\nand more ```json\n{}\n```", False, "name: web"),
    ("Sure.\n```\nname: web\n```", False, "name: web"),
    ("name: web\nport: 1", False, "name: web\nport: 1"),
    ("name: web\nport: 80", True, "name: web\nport: 80"),  # truncated: no closing fence
    ("", True, ""),
    ("```\n\n```", False, ""),
])
def test_extraction_takes_the_fenced_document_or_the_whole_completion(yaml_task, completion, prefilled, expected):
    assert kind_of(yaml_task).extract(yaml_task, completion, prefilled=prefilled) == expected


def test_a_json_mapping_is_prefilled_up_to_its_first_key_and_extracted_whole(pool, json_task):
    prompt = build_prompt(json_task)
    assert prompt.prefill == '```json\n{\n  "'
    continuation = 'name": "web", "port": 8080, "limits": {"min": 1, "max": 4}}\n```\nDone.'
    assert kind_of(json_task).extract(json_task, continuation) == '{\n  "' + continuation.split("\n```")[0]
    rollouts = Grader(pool, RewardConfig()).grade([json_task], [Completion(continuation)], ids=["a"])
    assert rollouts[0].passed


@pytest.mark.parametrize("completion", [GOOD_JSON + "\n```", "\n" + GOOD_JSON])
def test_a_completion_that_opens_its_own_document_is_not_given_a_second_opening(json_task, completion):
    # a chat server cannot prefill: its answer starts with the document (the backend drops its own fence)
    assert kind_of(json_task).extract(json_task, completion) == GOOD_JSON


def test_a_value_after_a_prefilled_key_is_not_taken_for_a_document_of_its_own():
    task = draft_task("structured_jobs", 0.0, 11, 0, 3, 5)
    task = Task(task.task_id, task.description, task.signature, task.entry_point, task.difficulty,
                reference_solution=task.reference_solution, params=task.params, kind="structured")
    fill = build_prompt(task).prefill
    assert fill == '```json\n{\n  "jobs":'  # the template level prefills the first key
    value = ' [\n    {"id": "x"}\n  ]\n}\n```'
    assert kind_of(task).extract(task, value) == '{\n  "jobs": [\n    {"id": "x"}\n  ]\n}'
    assert kind_of(task).extract(task, '{"jobs": [{"id": "x"}]}') == '{"jobs": [{"id": "x"}]}'


def test_a_document_that_is_not_a_mapping_gets_only_the_fence(json_task):
    listed = dataclasses.replace(json_task, reference_solution="[1, 2]")
    assert build_prompt(listed).prefill == "```json\n"


def test_json_extraction_drops_prose_around_a_bare_document(json_task):
    text = 'The config is {"name": "web"} as asked.'
    assert kind_of(json_task).extract(json_task, text, prefilled=False) == '{"name": "web"}'
    assert kind_of(json_task).extract(json_task, "no document here", prefilled=False) == ""


def test_the_grading_path_passes_right_fails_wrong_and_penalises_no_document(pool, yaml_task, json_task):
    tasks = [yaml_task, yaml_task, yaml_task, yaml_task, json_task, json_task]
    texts = [GOOD_YAML + "```",
             GOOD_YAML.replace("max: 4", "max: 0") + "```",  # min > max: breaks the hidden cross-field rule
             GOOD_YAML.replace("port: 8080", "port: 80") + "```",  # out of the schema's range
             "I cannot write YAML.\n```",
             GOOD_JSON + "\n```",
             '{"name": "web", "port": 8080,\n```']
    rollouts = Grader(pool, RewardConfig()).grade(tasks, [Completion(t) for t in texts], ids=list("abcdef"))
    assert [r.passed for r in rollouts] == [True, False, False, False, True, False]
    hidden_fail = rollouts[1].result
    assert hidden_fail.status is ExecStatus.FAILED and hidden_fail.public_score == 1.0 and hidden_fail.hidden_score == 0
    assert rollouts[1].reward.hardcoding_suspected
    assert "min" in hidden_fail.tests[2].got and "max" in hidden_fail.tests[2].got  # the judge says why
    assert rollouts[2].result.tests[0].status is TestStatus.WRONG_ANSWER and "80" in rollouts[2].result.tests[0].got
    # Prose parses as a YAML scalar, but a document is a mapping or a list: a format failure.
    assert rollouts[3].result.status is ExecStatus.SYNTAX_ERROR and "not a mapping" in rollouts[3].result.load_error
    assert rollouts[3].reward.format_penalty == RewardConfig().format_penalty
    assert rollouts[5].result.status is ExecStatus.SYNTAX_ERROR and "JSON" in rollouts[5].result.load_error
    assert rollouts[5].reward.format_penalty == RewardConfig().format_penalty
    assert rollouts[0].reward.format_penalty == 0 and rollouts[0].result.cpu_time_s > 0


def test_an_empty_answer_is_a_format_failure_without_running(pool, yaml_task):
    [rollout] = Grader(pool, RewardConfig()).grade([yaml_task], [Completion("```")], ids=["x"], prefilled=False)
    assert rollout.candidate.code == ""
    assert rollout.result.status is ExecStatus.SYNTAX_ERROR
    assert rollout.reward.format_penalty == RewardConfig().format_penalty


def test_the_evaluator_grades_structured_samples(pool, tmp_path, yaml_task, json_task):
    samples = tmp_path / "samples.jsonl"
    lines = [(yaml_task.task_id, f"```yaml\n{GOOD_YAML}```"), (yaml_task.task_id, "name: [unclosed"),
             (json_task.task_id, GOOD_JSON)]
    samples.write_text("".join(json.dumps({"task_id": t, "completion": c}) + "\n" for t, c in lines))
    report = grade_samples(pool, [yaml_task, json_task], samples, ks=(1,), suite="structured").to_dict()
    assert report["n_tasks"] == 2
    assert report["pass_at_k"]["1"] == pytest.approx((0.5 + 1.0) / 2)


def test_through_the_sandbox_a_misspelt_rule_field_and_a_missing_condition_key_fail_and_a_right_document_passes(pool):
    from spade.records import TestCase

    packets = [{"protocol": "tcp", "port": 22, "source": "10.1.2.3"}, {"protocol": "tcp", "port": 80,
                                                                        "source": "10.1.2.3"}]
    tls = {"op": "implies", "if": {"op": "equals", "path": ["tls", "enabled"], "value": True},
           "then": {"op": "exists", "path": ["tls", "cert_path"]}}
    task = Task("structured/fw", "Allow ssh only; TLS needs a certificate.", "a JSON document", "json", 0.4,
                test_cases=(TestCase(({"op": "firewall", "rules": ["rules", "*"], "default": ["default"],
                                       "packets": packets},), ["allow", "deny"]),),
                hidden_test_cases=(TestCase((tls,), True),), kind="structured")
    right = {"default": "deny", "rules": [{"action": "allow", "protocol": "tcp", "ports": [22]}],
             "tls": {"enabled": True, "cert_path": "/etc/a.crt"}}
    misspelt = {**right, "rules": [{"action": "allow", "protocol": "tcp", "port": 22}]}
    no_tls = {k: v for k, v in right.items() if k != "tls"}
    answers = [json.dumps(d) for d in (right, misspelt, no_tls)]
    results = kind_of(task).execute(pool, [(task, a) for a in answers])
    assert results[0].status is ExecStatus.PASSED and results[0].score == 1.0, results[0]
    assert results[1].tests[0].status is not TestStatus.PASSED and results[1].tests[1].status is TestStatus.PASSED
    assert results[2].tests[0].status is TestStatus.PASSED and results[2].tests[1].status is not TestStatus.PASSED
