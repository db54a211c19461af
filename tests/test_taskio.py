import json

import pytest

from spade.errors import TaskFormatError
from spade.taskio import load_tasks, task_from_dict, task_to_dict
from spade.untrusted import MAX_VALUE_DEPTH

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


# --- hostile and careless files: one line naming the file, the field, the value and the fix ------------------

def _case(expected_text: str) -> str:
    """WRITE_UP_TASK as JSON text whose first expected value is `expected_text` verbatim."""
    return json.dumps(WRITE_UP_TASK).replace('"expected": [0, 1]', '"expected": ' + expected_text, 1)


def _one_line_error(path, *fragments):
    with pytest.raises(TaskFormatError) as info:
        load_tasks(path)
    message = str(info.value)
    assert "\n" not in message and len(message) < 400, message
    for f in fragments:
        assert f in message, message
    return message


@pytest.mark.parametrize("literal", ["9" * 4301, "-" + "9" * 5000])
def test_an_integer_over_4300_digits_names_the_field_and_its_length(tmp_path, literal):
    path = tmp_path / "t.json"
    path.write_text(_case(literal))
    _one_line_error(path, str(path), "test_cases[0].expected", f"{len(literal.lstrip('-'))} digits", "4300")


def test_an_integer_of_4300_digits_still_loads(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(_case("9" * 4300))
    assert load_tasks(path)[0].test_cases[0].expected == int("9" * 4300)


@pytest.mark.parametrize("depth", [80, 1_000, 100_000])
def test_deep_nesting_names_the_field_without_a_recursion_error(tmp_path, depth):
    path = tmp_path / "t.jsonl"
    text = json.dumps(WRITE_UP_TASK).replace('"input": [[2, 7, 11, 15], 9]', '"input": ' + "[" * depth + "]" * depth)
    path.write_text(json.dumps(WRITE_UP_TASK | {"task_id": "ok"}) + "\n" + text + "\n")
    _one_line_error(path, f"{path}:2", "test_cases[0].input", f"nested more than {MAX_VALUE_DEPTH} levels")


def test_nesting_inside_a_dict_key_value_and_params_is_bounded_too(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(dict(WRITE_UP_TASK, params={"k": "x"})).replace('"x"', "[" * 5000 + "]" * 5000))
    _one_line_error(path, "field 'params'", f"nested more than {MAX_VALUE_DEPTH} levels")


def test_test_values_load_exactly_as_deep_as_the_sandbox_codec_carries(tmp_path):
    path = tmp_path / "t.json"
    deepest = "[" * MAX_VALUE_DEPTH + "1" + "]" * MAX_VALUE_DEPTH  # one argument, one expected value: 64 levels
    text = json.dumps(WRITE_UP_TASK).replace('"input": [[2, 7, 11, 15], 9]', f'"input": [{deepest}, 9]', 1)
    path.write_text(text.replace('"expected": [0, 1]', f'"expected": {deepest}', 1))
    (task,) = load_tasks(path)
    assert task.test_cases[0].expected == task.test_cases[0].args[0]
    path.write_text(_case("[" + deepest + "]"))
    _one_line_error(path, "test_cases[0].expected", f"nested more than {MAX_VALUE_DEPTH} levels")
    path.write_text(text.replace(f'"input": [{deepest}, 9]', f'"input": [[{deepest}], 9]', 1))
    _one_line_error(path, "test_cases[0].input", "an argument in it is nested more than")


def test_a_latin1_file_names_the_line_and_byte_and_how_to_convert(tmp_path):
    path = tmp_path / "t.jsonl"
    good = json.dumps(WRITE_UP_TASK)
    bad = json.dumps(dict(WRITE_UP_TASK, description="café"), ensure_ascii=False)
    path.write_bytes((good + "\n" + bad + "\n").encode("latin-1"))
    _one_line_error(path, f"{path}:2", "not UTF-8", "0xe9", "iconv")


def test_a_utf8_bom_is_accepted(tmp_path):
    path = tmp_path / "t.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(WRITE_UP_TASK).encode())
    assert load_tasks(path)[0].task_id == "algo_0031"


@pytest.mark.parametrize("value, shown", [("fast", "'fast'"), ([1], "[1]"), (1e308, "1e+308"), (-1, "-1"),
                                          (True, "True"), ("NaN", "'NaN'")])
def test_reference_cpu_s_must_be_a_finite_number_of_seconds(tmp_path, value, shown):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(dict(WRITE_UP_TASK, params={"reference_cpu_s": value})))
    _one_line_error(path, "params.reference_cpu_s", f"= {shown}", "time_floor_s")


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_non_finite_reference_cpu_s_literals_are_refused(tmp_path, literal):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(dict(WRITE_UP_TASK, params={"reference_cpu_s": 0.5})).replace("0.5", literal))
    _one_line_error(path, "params.reference_cpu_s", "[0, 600]")


@pytest.mark.parametrize("value", [["two_sum"], 3, "two sum", "import os; f", "class"])
def test_entry_point_must_be_a_python_name(tmp_path, value):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(dict(WRITE_UP_TASK, entry_point=value)))
    _one_line_error(path, "field 'entry_point'", "function's name")


def test_no_shown_tests_is_refused_rather_than_passed(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(dict(WRITE_UP_TASK, test_cases=[])))
    _one_line_error(path, "field 'test_cases' = []", "at least one")


@pytest.mark.parametrize(
    "change, fragments",
    [
        ({"family": ["a"]}, ["field 'family'", "['a']"]),
        ({"provenance": {"prompt": ["def f(): pass"]}}, ["provenance.prompt", "string"]),
        ({"hidden_test_cases": {"input": [1]}}, ["field 'hidden_test_cases'", "must be a list"]),
        ({"params": [1, 2]}, ["field 'params' = [1, 2]", "JSON object"]),
        ({"task_id": 7}, ["field 'task_id' = 7"]),
        ({"description": "x" * 10_000}, []),  # long strings are fine
    ],
)
def test_every_field_of_the_wrong_type_is_one_line(tmp_path, change, fragments):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(dict(WRITE_UP_TASK, **change)))
    if not fragments:
        assert load_tasks(path)
        return
    _one_line_error(path, *fragments)


def test_a_huge_value_is_shortened_in_the_message(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(dict(WRITE_UP_TASK, test_cases=[{"input": "y" * 100_000, "expected": 1}])))
    message = _one_line_error(path, "test_cases[0].input", "…")
    assert len(message) < 300


def test_a_value_too_large_for_the_sandbox_is_refused(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(dict(WRITE_UP_TASK, test_cases=[{"input": [list(range(200_000))], "expected": 1}])))
    _one_line_error(path, "test_cases[0].input", "too large")


def test_nan_and_infinity_remain_valid_expected_values(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(_case("NaN").replace('"expected": [1, 2]', '"expected": Infinity'))
    (task,) = load_tasks(path)
    assert task.test_cases[0].expected != task.test_cases[0].expected  # NaN
    assert task.test_cases[1].expected == float("inf")


def test_duplicate_task_ids_in_one_file_name_both_places(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(WRITE_UP_TASK) + "\n" + json.dumps(WRITE_UP_TASK) + "\n")
    _one_line_error(path, f"{path}:2", f"{path}:1", "algo_0031")


def test_a_directory_given_as_a_task_file_is_one_line(tmp_path):
    (tmp_path / "d.json").mkdir()
    with pytest.raises(TaskFormatError, match="does not exist"):
        load_tasks(tmp_path / "d.json")


def test_the_references_cpu_time_is_a_typed_field_read_from_and_written_to_params_as_before(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(dict(WRITE_UP_TASK, params={"reference_cpu_s": 0.25, "n": 3})))
    (task,) = load_tasks(path)
    assert task.reference_cpu_s == 0.25 and task.params == {"n": 3}
    assert task_to_dict(task)["params"] == {"n": 3, "reference_cpu_s": 0.25}  # files and stores keep their form
    assert task_from_dict(task_to_dict(task)) == task
