import json

import pytest

from spade.errors import TaskFormatError
from spade.taskio import load_tasks, task_from_dict, task_to_dict

WRITE_UP_TASK = {
    "task_id": "algo_0031",
    "description": "Return the indices of the two numbers that add up to target.",
    "signature": "def two_sum(nums: list[int], target: int) -> list[int]:",
    "difficulty": 0.62,
    "tags": ["array", "hash_map"],
    "test_cases": [{"input": [[2, 7, 11, 15], 9], "expected": [0, 1]}, {"input": [[3, 2, 4], 6], "expected": [1, 2]}],
}


def test_write_up_schema_is_accepted_as_is(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(WRITE_UP_TASK))
    (task,) = load_tasks(path)
    assert task.entry_point == "two_sum"
    assert task.test_cases[0].args == ([2, 7, 11, 15], 9)
    assert task.hidden_test_cases == ()


def test_jsonl_and_round_trip(tmp_path):
    other = dict(WRITE_UP_TASK, task_id="b", hidden_test_cases=[{"input": [[1, 1], 2], "expected": [0, 1]}])
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(WRITE_UP_TASK) + "\n\n" + json.dumps(other) + "\n")
    tasks = load_tasks(path)
    assert [t.task_id for t in tasks] == ["algo_0031", "b"]
    assert task_from_dict(task_to_dict(tasks[1])) == tasks[1]


@pytest.mark.parametrize(
    "change, expected",
    [
        ({"signature": None}, "signature"),
        ({"test_cases": "nope"}, "test_cases"),
        ({"test_cases": [{"input": 3, "expected": 1}]}, "test_cases[0].input"),
        ({"difficulty": 7}, "difficulty"),
        ({"signature": "def broken(:"}, "does not parse"),
        ({"colour": "red"}, "unknown field 'colour'"),
        ({"tags": "array"}, "tags"),
    ],
)
def test_bad_task_fields_are_named_in_one_line(change, expected):
    d = {k: v for k, v in {**WRITE_UP_TASK, **change}.items() if v is not None}
    with pytest.raises(TaskFormatError) as info:
        task_from_dict(d, "f.jsonl:3")
    assert expected in str(info.value) and "f.jsonl:3" in str(info.value)
    assert "\n" not in str(info.value)


def test_bad_json_line_names_the_line(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(WRITE_UP_TASK) + "\n{oops\n")
    with pytest.raises(TaskFormatError, match=r"t.jsonl:2: not valid JSON"):
        load_tasks(path)
