"""Structured tasks in task files: they round-trip through SPADE's task schema, `spade validate` accepts a
sound file (reference judged, corrupted copies caught) and rejects broken ones with reasons, without a traceback."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from spade.cli import main
from spade.config import GenerationConfig
from spade.kinds import validate_tasks
from spade.records import TestCase
from spade.taskio import load_tasks, task_from_dict, task_to_dict
from tests.kinds.structured.conftest import CHECKS, GOOD_YAML, service_task


def test_a_structured_task_round_trips_through_a_task_file(tmp_path, yaml_task):
    data = task_to_dict(yaml_task)
    assert data["kind"] == "structured" and data["entry_point"] == "yaml"
    assert task_from_dict(json.loads(json.dumps(data))) == yaml_task
    path = tmp_path / "tasks.jsonl"
    path.write_text(json.dumps(data) + "\n")
    assert load_tasks(path) == [yaml_task]


def _write(tmp_path, tasks, name="tasks.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(task_to_dict(t)) + "\n" for t in tasks))
    return path


def test_spade_validate_accepts_a_sound_structured_file(tmp_path, capsys, yaml_task, json_task):
    assert main(["validate", str(_write(tmp_path, [yaml_task, json_task]))]) == 0
    assert "2 accepted, 0 rejected" in capsys.readouterr().out


BROKEN = {
    "unknown_op": (lambda t: replace(t, test_cases=(TestCase(({"op": "telepathy"},), True),)), "bad_check"),
    "unsupported_schema_keyword": (lambda t: replace(t, test_cases=(TestCase(({"op": "schema", "schema": {
        "$ref": "#/x"}},), True),)), "bad_check"),
    "constraint_expecting_false": (lambda t: replace(t, test_cases=(TestCase((CHECKS[1],), False),)), "bad_expected"),
    "bad_format": (lambda t: replace(t, entry_point="toml"), "bad_format"),
    "reference_breaks_a_rule": (lambda t: replace(t, reference_solution=GOOD_YAML.replace("max: 4", "max: 0")),
                                "reference_fails"),
    "reference_unparseable": (lambda t: replace(t, reference_solution="name: [web"), "reference_unparseable"),
    "reference_bomb": (lambda t: replace(t, reference_solution="a: &a [*a, *a]\n"), "reference_unparseable"),
    "weak_tests": (lambda t: replace(t, test_cases=(TestCase(({"op": "exists", "path": []},), True),),
                                     hidden_test_cases=()), "weak_tests"),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_validation_rejects_a_broken_structured_task_with_its_reason(pool, yaml_task, name):
    make, reason = BROKEN[name]
    [outcome] = validate_tasks([make(yaml_task)], pool, GenerationConfig())
    assert not outcome.accepted and reason in outcome.reasons, (outcome.reasons, outcome.details)


def test_spade_validate_rejects_a_broken_file_with_reasons_and_no_traceback(tmp_path, capsys, yaml_task):
    broken = [replace(BROKEN["reference_breaks_a_rule"][0](yaml_task), task_id="structured/min-above-max"),
              replace(BROKEN["bad_format"][0](yaml_task), task_id="structured/toml")]
    assert main(["validate", str(_write(tmp_path, [yaml_task, *broken]))]) == 1
    out = capsys.readouterr()
    assert "1 accepted, 2 rejected" in out.out and "reference_fails" in out.out and "bad_format" in out.out
    assert "Traceback" not in out.out + out.err


def test_without_a_reference_a_structured_task_is_checked_statically_only(yaml_task):
    [ok] = validate_tasks([replace(yaml_task, reference_solution=None)], None, GenerationConfig())
    assert ok.accepted and ok.notes and ok.notes[0].startswith("static_only")
    [bad] = validate_tasks([BROKEN["unknown_op"][0](replace(yaml_task, reference_solution=None))], None,
                           GenerationConfig())
    assert not bad.accepted and bad.reasons == ("bad_check",)


def test_a_structured_file_with_an_unknown_kind_is_one_line(tmp_path, capsys):
    data = dict(task_to_dict(service_task()), kind="structure")
    path = tmp_path / "t.json"
    path.write_text(json.dumps(data))
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert "'structure' is not a task kind" in err and "structured" in err and "Traceback" not in err


def test_the_readme_example_is_a_task_spade_validate_accepts(tmp_path, capsys):
    readme = (Path(__file__).resolve().parents[3] / "docs" / "kinds.md").read_text()
    example = readme.split("### structured", 1)[1].split("```json\n", 1)[1].split("\n```", 1)[0]
    path = tmp_path / "example.json"
    path.write_text(example)
    assert main(["validate", str(path)]) == 0
    assert "1 accepted" in capsys.readouterr().out


def test_spade_exec_judges_a_document_file_for_a_structured_task(tmp_path, capsys, yaml_task):
    task = _write(tmp_path, [yaml_task], "task.jsonl")
    good, bad = tmp_path / "good.yaml", tmp_path / "bad.yaml"
    good.write_text(GOOD_YAML)
    bad.write_text(GOOD_YAML.replace("max: 4", "max: 0"))
    assert main(["exec", str(task), str(good)]) == 0
    assert main(["exec", str(task), str(bad)]) == 1
