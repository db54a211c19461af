"""Tool-call tasks in task files: they round-trip through SPADE's task schema (with `kind`), `spade validate`
accepts a sound file and rejects broken ones with reasons (exit 1, no traceback)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from spade.cli import main
from spade.taskio import load_tasks, task_from_dict, task_to_dict

STATE_A = {"weather": {"Lyon": {"temp_c": 21.5, "condition": "sunny", "humidity": 40},
                       "Oslo": {"temp_c": -3.0, "condition": "snow", "humidity": 80}}}
STATE_B = {"weather": {"Lyon": {"temp_c": 8.0, "condition": "rain", "humidity": 90},
                       "Oslo": {"temp_c": 12.5, "condition": "cloudy", "humidity": 55}}}
WEATHER = {
    "task_id": "tools_weather_lyon", "kind": "tool_call", "entry_point": "tool_calls",
    "description": "What is the temperature in Lyon right now, in fahrenheit?",
    "signature": "get_weather, get_humidity, kv_get",
    "reference_solution": '[{"name": "get_weather", "arguments": {"city": "Lyon", "unit": "fahrenheit"}}]',
    "test_cases": [{"input": [STATE_A], "expected": {
        "answer": {"city": "Lyon", "temperature": 70.7, "unit": "fahrenheit", "condition": "sunny"}, "state": STATE_A}}],
    "hidden_test_cases": [{"input": [STATE_B], "expected": {
        "answer": {"city": "Lyon", "temperature": 46.4, "unit": "fahrenheit", "condition": "rain"}, "state": STATE_B}}],
}


def _write(tmp_path, task, name="tasks.json"):
    path = tmp_path / name
    path.write_text(json.dumps(task))
    return str(path)


def _broken(**changes):
    task = copy.deepcopy(WEATHER)
    for key, value in changes.items():
        task[key] = value
    return task


def test_a_tool_call_task_round_trips_through_the_task_schema(tmp_path, shop_task):
    assert task_from_dict(json.loads(json.dumps(task_to_dict(shop_task)))) == shop_task
    loaded = load_tasks(_write(tmp_path, WEATHER))[0]
    assert loaded.kind == "tool_call" and loaded.entry_point == "tool_calls"
    assert task_to_dict(loaded)["kind"] == "tool_call"


def test_spade_validate_accepts_a_sound_tool_call_file(tmp_path, capsys):
    assert main(["validate", _write(tmp_path, WEATHER)]) == 0
    assert "1 accepted, 0 rejected" in capsys.readouterr().out


@pytest.mark.parametrize(("changes", "reason"), [
    ({"signature": "get_weather, open_socket"}, "unknown_tool"),
    ({"entry_point": ""}, "bad_entry_point"),
    ({"entry_point": "get_weather"}, "bad_entry_point"),
    ({"test_cases": [{"input": ["not a state"], "expected": 1}]}, "bad_state"),
    ({"reference_solution": "call get_weather for Lyon"}, "reference_unparseable"),
    ({"reference_solution": '[{"name": "get_weather", "arguments": {"town": "Lyon"}}]'}, "reference_fails"),
    ({"reference_solution": '[{"name": "get_weather", "arguments": {"city": "Lyon", "unit": "celsius"}}]'},
     "expected_mismatch"),
])
def test_spade_validate_rejects_broken_tool_call_files_with_reasons(tmp_path, capsys, changes, reason):
    assert main(["validate", _write(tmp_path, _broken(**changes))]) == 1
    out = capsys.readouterr().out
    assert "rejected" in out and reason in out and "Traceback" not in out


def test_tests_that_cannot_tell_a_wrong_plan_apart_are_rejected_as_weak(tmp_path, capsys):
    # The unit given explicitly is the default: leaving it out changes nothing, and only get_weather is offered.
    celsius = '[{"name": "get_weather", "arguments": {"city": "Lyon", "unit": "celsius"}}]'
    task = _broken(signature="get_weather", reference_solution=celsius,
                   test_cases=[{"input": [STATE_A], "expected": {"answer": {
                       "city": "Lyon", "temperature": 21.5, "unit": "celsius", "condition": "sunny"}, "state": STATE_A}}],
                   hidden_test_cases=[])
    assert main(["validate", _write(tmp_path, task)]) == 1
    assert "weak_tests" in capsys.readouterr().out


def test_an_unknown_kind_in_a_file_is_one_line_naming_the_known_kinds(tmp_path, capsys):
    code = main(["validate", _write(tmp_path, _broken(kind="tool_calls"))])
    err = capsys.readouterr().err
    assert code == 2 and "tool_call" in err and "Traceback" not in err


def test_the_readme_example_is_a_task_spade_validate_accepts(tmp_path, capsys):
    readme = (Path(__file__).resolve().parents[3] / "docs" / "kinds.md").read_text()
    example = json.loads(readme.split("### tool_call", 1)[1].split("```json\n", 1)[1].split("\n```", 1)[0])
    assert main(["validate", _write(tmp_path, example)]) == 0
    assert "1 accepted" in capsys.readouterr().out
    # Its hidden test has another user id: without it, hard-coding the id of the shown test would pass everything.
    assert main(["validate", _write(tmp_path, {**example, "hidden_test_cases": []})]) == 1
    assert "weak_tests" in capsys.readouterr().out


def test_params_tools_name_the_offered_tools_and_must_agree_with_a_signature_listing_them(tmp_path, capsys):
    listed = _broken(params={"tools": ["get_weather", "get_humidity", "kv_get"]}, signature="Tools: see params.")
    assert main(["validate", _write(tmp_path, listed)]) == 0
    capsys.readouterr()
    assert main(["validate", _write(tmp_path, _broken(params={"tools": ["get_weather"]}))]) == 1
    assert "tools_mismatch" in capsys.readouterr().out
    assert main(["validate", _write(tmp_path, _broken(params={"tools": "get_weather"}))]) == 1
    assert "unknown_tool" in capsys.readouterr().out


def test_a_task_rebuilt_from_exported_ground_truth_grades_by_its_offered_tools(pool, shop_task):
    from spade.export.reward_fn import score_answer
    from spade.groundtruth import ground_truth

    truth = ground_truth(shop_task)
    right = "```json\n" + shop_task.reference_solution + "\n```"
    assert score_answer(right, truth, prefilled=False) > 1.0
    assert score_answer("```json\n[]\n```", truth, prefilled=False) < 0
