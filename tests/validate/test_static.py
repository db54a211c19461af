import ast
from dataclasses import replace

import pytest

from spade.generate import draft_task
from spade.records import Task, TestCase
from spade.validate.static import check_draft, check_task
from spade.validate.types import Ann, fits, parse_annotation

GOOD = Task(
    task_id="t1", description="Return the sum of xs.", signature="def total(xs: list[int], k: int = 0) -> int:",
    entry_point="total", difficulty=0.1,
    test_cases=(TestCase(([1, 2],), 3), TestCase(([], 5), 5)),
    reference_solution="def total(xs, k=0):\n    return sum(xs) + k\n",
)


def codes(task):
    return [p.code for p in check_task(task)]


def test_a_well_formed_task_has_no_problems():
    assert check_task(GOOD) == []


@pytest.mark.parametrize("field,value", [("description", ""), ("task_id", "  "), ("signature", None)])
def test_a_missing_field_is_rejected(field, value):
    assert codes(replace(GOOD, **{field: value})) == ["missing_field"]


def test_an_unparsable_signature_is_rejected():
    assert codes(replace(GOOD, signature="def total(xs: list[int] -> int:")) == ["bad_signature"]
    assert codes(replace(GOOD, signature="x = 1")) == ["bad_signature"]


def test_an_entry_point_other_than_the_signature_name_is_rejected():
    assert codes(replace(GOOD, entry_point="sum_all")) == ["entry_point_mismatch"]


def test_too_many_or_too_few_arguments_is_an_arity_mismatch():
    assert codes(replace(GOOD, test_cases=(TestCase(([1], 2, 3), 3),))) == ["arity_mismatch"]
    assert codes(replace(GOOD, test_cases=(TestCase((), 0),))) == ["arity_mismatch"]


@pytest.mark.parametrize("args", [(["1", 2],), ([1], True), ([1.5],), ({"a": 1},), ([1], None)])
def test_an_argument_outside_its_annotation_is_a_type_mismatch(args):
    assert codes(replace(GOOD, test_cases=(TestCase(args, 0),))) == ["type_mismatch"]


def test_an_expected_value_outside_the_return_annotation_is_rejected():
    assert codes(replace(GOOD, test_cases=(TestCase(([1],), "1"),))) == ["return_type_mismatch"]
    assert codes(replace(GOOD, test_cases=(TestCase(([1],), True),))) == ["return_type_mismatch"]


def test_a_tuple_argument_is_not_plain_json():
    assert codes(replace(GOOD, test_cases=(TestCase(((1, 2),), 3),))) == ["non_json_input"]


def test_an_unknown_annotation_is_reported_not_guessed():
    assert codes(replace(GOOD, signature="def total(xs: Node) -> int:", test_cases=(TestCase((1,), 1),))) == [
        "unsupported_annotation"]


def test_a_reference_without_the_entry_point_is_rejected():
    assert codes(replace(GOOD, reference_solution="def other(xs):\n    return 0\n")) == ["reference_missing_entry_point"]
    assert codes(replace(GOOD, reference_solution="def total(xs:\n")) == ["reference_syntax"]


def test_a_task_without_tests_is_rejected():
    assert codes(replace(GOOD, test_cases=())) == ["no_tests"]


def test_drafts_with_a_wrong_arity_are_rejected():
    draft = draft_task("list_aggregate", 0.0, 0, 0, 3, 5)
    assert check_draft(draft) == []
    bad = replace(draft, hidden_inputs=draft.hidden_inputs + (([1], 2),))
    assert [p.code for p in check_draft(bad)] == ["arity_mismatch"]


@pytest.mark.parametrize("text,value,ok", [
    ("int", 3, True), ("int", True, False), ("int", 3.0, False), ("float", 3, True), ("bool", 0, False),
    ("list[int]", [1, 2], True), ("list[int]", [1, "2"], False), ("dict[str, list[int]]", {"a": [1]}, True),
    ("Optional[int]", None, True), ("int | None", "x", False), ("tuple[int, str]", [1, "a"], True),
    ("tuple[int, ...]", [1, 2, 3], True), ("List[str]", ["a"], True), ("list", [1, "a"], True), ("Any", {}, True),
])
def test_json_values_are_checked_against_annotations(text, value, ok):
    assert fits(value, parse_annotation(ast.parse(text, mode="eval").body)) is ok


def test_a_missing_annotation_accepts_anything():
    assert parse_annotation(None) == Ann("Any")


@pytest.mark.parametrize("body", ["x" + "+0" * 200_000, "-" * 20_000 + "x", "x" + "+0" * 1_000])
def test_a_reference_too_deep_to_parse_or_walk_is_rejected_not_raised(body):
    task = replace(GOOD, reference_solution=f"def total(xs, k=0):\n    return {body}\n")
    assert codes(task) == ["reference_syntax"]
