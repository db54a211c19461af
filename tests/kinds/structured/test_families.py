"""The structured families' contract, through the real sandbox: every family at several difficulties drafts
tasks that validation accepts, with expected values taken from judging the reference; drafts are deterministic,
the knobs change what is asked, and the reference scores 1.0 on the grading path."""

from __future__ import annotations

import json
from typing import Any

import pytest

from spade.config import GenerationConfig, RewardConfig
from spade.generate.procedural import draft_task
from spade.generate.registry import family_names, get_family, resolve_families
from spade.kinds import validate_drafts
from spade.kinds.structured.families.common import VALUES_HEADER
from spade.kinds.structured.judge.checks import CheckFailed, run
from spade.kinds.structured.judge.parse import parse_document
from spade.policy.prompts import build_prompt
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
def test_difficulty_moves_from_json_with_a_template_then_the_schema_to_yaml_with_neither(family):
    easiest, easy = draft_task(family, 0.0, 1, 0, 3, 5), draft_task(family, 0.25, 1, 0, 3, 5)
    hard = draft_task(family, 1.0, 1, 0, 3, 5)
    # shown a schema beside the template, a small model copies the schema: the easiest level states it in words
    assert easiest.entry_point == "json" and "JSON Schema" not in easiest.description
    assert "replace the values" in easiest.description
    assert easy.entry_point == "json" and "JSON Schema" in easy.description
    # structured_record is about the schema itself: it always shows it, and grows it.
    assert hard.entry_point == "yaml" and ("JSON Schema" in hard.description) == (family == "structured_record")
    assert len(json.dumps(hard.params)) > len(json.dumps(easy.params))  # more fields, clauses or constraints


def _template(description: str) -> str:
    return description.split("meets the requirements above:\n", 1)[1].split(VALUES_HEADER, 1)[0]


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("index", range(6))
def test_the_easiest_level_shows_the_answer_with_a_few_values_blanked_and_copying_it_fails_a_hidden_test(family,
                                                                                                          index):
    draft = draft_task(family, 0.0, 5, index, 3, 5)
    schema = draft.params["implied"][0]["schema"]
    assert draft.params["show_template"]
    template = parse_document(_template(draft.description), draft.entry_point)
    reference = parse_document(draft.reference_solution, draft.entry_point)
    assert run({"op": "schema", "schema": _keys_only(schema)}, reference)
    assert len(_differences(template, reference)) == 1  # the answer's keys, with one value to fill in
    broken = []
    for (check,) in draft.hidden_inputs:  # the hidden tests decide the reward
        try:
            broken.append(run(check, template) != run(check, reference))
        except CheckFailed:
            broken.append(True)
    assert any(broken), "the template passes every hidden test: copying it would score full marks"


@pytest.mark.parametrize("family", FAMILIES)
def test_more_values_are_blanked_as_difficulty_rises_within_the_template_level(family):
    counts = []
    for difficulty in (0.0, 0.2):
        draft = draft_task(family, difficulty, 5, 0, 3, 5)
        template = parse_document(_template(draft.description), draft.entry_point)
        counts.append(len(_differences(template, parse_document(draft.reference_solution, draft.entry_point))))
    assert counts[0] == 1 < counts[1]


def _differences(a: Any, b: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The paths where two documents of one shape differ (lists and mappings compared item by item)."""
    if type(a) is dict and type(b) is dict and a.keys() == b.keys():
        return [d for k in a for d in _differences(a[k], b[k], (*path, k))]
    if type(a) is list and type(b) is list and len(a) == len(b) and a and type(a[0]) is dict:
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in _differences(x, y, (*path, i))]
    return [] if a == b else [path]


def _keys_only(schema: Any) -> Any:
    """The schema's objects and their keys, every key required, without the value constraints."""
    if not isinstance(schema, dict):
        return schema
    if "properties" in schema:
        return {"type": "object", "required": list(schema["properties"]), "additionalProperties": False,
                "properties": {k: _keys_only(v) for k, v in schema["properties"].items()}}
    if isinstance(schema.get("items"), dict):
        return {"type": "array", "items": _keys_only(schema["items"])}
    return {}


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("difficulty", (0.25, 0.5, 1.0))
def test_harder_levels_show_no_template(family, difficulty):
    draft = draft_task(family, difficulty, 5, 0, 3, 5)
    assert not draft.params["show_template"]
    assert "replace the values" not in draft.description


@pytest.mark.parametrize("difficulty", (0.0, 0.5, 1.0))
def test_a_job_list_with_an_id_not_among_the_given_jobs_fails_the_schema(difficulty):
    # the per-job facts apply only to the given ids: an unknown id escaped them all
    draft = draft_task("structured_jobs", difficulty, 5, 0, 3, 5)
    doc = parse_document(draft.reference_solution, draft.entry_point)
    schema = draft.params["implied"][0]
    assert run(schema, doc)
    doc["jobs"][0]["id"] = "x-" + doc["jobs"][0]["id"]
    with pytest.raises(CheckFailed):
        run(schema, doc)


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("index", range(6))
def test_the_easiest_level_ends_with_the_stated_values_written_as_in_the_reference(family, index):
    # a small model copies the last `"key": value` it read: the values after the template are the answer's own
    draft = draft_task(family, 0.0, 5, index, 3, 5)
    lines = draft.description.split(VALUES_HEADER, 1)[1].splitlines()
    reference = parse_document(draft.reference_solution, draft.entry_point)
    stated = [json.loads(line if line.startswith("{") else "{" + line + "}") for line in lines]
    assert stated and all(_holds(reference, s) for s in stated)
    template = parse_document(_template(draft.description), draft.entry_point)
    assert not all(_holds(template, s) for s in stated)  # the values are what the template gets wrong


def _holds(doc: Any, stated: dict[str, Any]) -> bool:
    """Some mapping in doc has every stated key with the stated value."""
    if isinstance(doc, dict) and all(k in doc and doc[k] == v for k, v in stated.items()):
        return True
    children = doc.values() if isinstance(doc, dict) else doc if isinstance(doc, list) else ()
    return any(_holds(child, stated) for child in children)


@pytest.mark.parametrize("difficulty", (0.25, 0.5, 1.0))
def test_harder_levels_state_no_values(difficulty):
    for family in FAMILIES:
        assert VALUES_HEADER not in draft_task(family, difficulty, 5, 0, 3, 5).description


def test_the_easiest_service_is_four_stated_keys_and_harder_ones_add_resources_and_env():
    easiest = parse_document(draft_task("structured_service", 0.0, 5, 0, 3, 5).reference_solution, "json")
    assert list(easiest) == ["name", "image", "replicas", "ports"] and len(easiest["ports"]) == 1
    harder = parse_document(draft_task("structured_service", 0.25, 5, 0, 3, 5).reference_solution, "json")
    assert {"resources", "env"} <= set(harder)


def test_the_easiest_firewall_prompt_shows_no_example_packets_and_harder_ones_do(validated):
    # at the easiest level every value is stated; the model copied the example packets' addresses into `ports`
    shown = {o.task.difficulty: build_prompt(o.task).messages[-1]["content"] for o in validated[1]
             if o.task.family == "structured_firewall"}
    assert "For example" not in shown[0.0] and "must be" not in shown[0.0]
    assert "For example" in shown[0.5] and "must be" in shown[0.5]


@pytest.mark.parametrize("family", ("structured_cluster", "structured_jobs", "structured_record", "structured_service"))
@pytest.mark.parametrize("index", range(4))
def test_the_one_blank_at_difficulty_0_is_a_number_where_the_family_has_one(family, index):
    # the 135M model wrote a stated number into its blank far more often than a string (it copied `"image": null`)
    draft = draft_task(family, 0.0, 5, index, 3, 5)
    template = parse_document(_template(draft.description), draft.entry_point)
    reference = parse_document(draft.reference_solution, draft.entry_point)
    (path,) = _differences(template, reference)
    value = reference
    for step in path:
        value = value[step]
    has_number = family != "structured_record" or any(type(v) in (int, float) for v in reference.values())
    assert type(value) in (int, float) or not has_number
