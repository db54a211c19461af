"""spade.catalog: reasoning-gym's create_dataset / score_answer over SPADE's families, graded in the real sandbox."""

from __future__ import annotations

import pytest

from spade.catalog import create_dataset, score_answer
from spade.errors import ConfigError
from spade.registry import FAMILIES, KINDS

ONE_PER_KIND = sorted({FAMILIES.get(n).kind: n for n in FAMILIES.names()}.values())


@pytest.mark.parametrize("name", ONE_PER_KIND)
def test_each_entry_is_a_validated_task_its_answer_passes_and_a_wrong_one_does_not(name: str) -> None:
    data = create_dataset(name, size=2, seed=3, difficulty=0.4)
    assert len(data) == 2 and [e["metadata"]["source_dataset"] for e in data] == [name, name]
    for entry in data:
        assert entry["question"] and entry["metadata"]["difficulty"] == 0.4
        assert entry["metadata"]["task"]["test_cases"]  # expected values, from running the reference
        assert data.score_answer(entry["answer"], entry) == 1.0
        assert score_answer("I do not know.", entry) == 0.0 and score_answer(None, entry) == 0.0


def test_a_partly_right_function_scores_the_share_of_tests_it_passes() -> None:
    entry = create_dataset("sorting", size=1, seed=0, difficulty=0.0)[0]
    task = entry["metadata"]["task"]
    first = task["test_cases"][0]
    args = ", ".join(f"a{i}" for i in range(len(first["input"])))
    # Right on the first public test only: the share of tests passed, never a pass.
    answer = f"```python\ndef {task['entry_point']}({args}):\n    return {first['expected']!r}\n```"
    score = score_answer(answer, entry)
    total = len(task["test_cases"]) + len(task["hidden_test_cases"])
    assert 0 < score < 1 and score * total == pytest.approx(round(score * total))


def test_the_same_arguments_make_the_same_dataset_and_another_seed_another() -> None:
    ids = [e["metadata"]["task"]["task_id"] for e in create_dataset("digits", size=3, seed=5)]
    assert ids == [e["metadata"]["task"]["task_id"] for e in create_dataset("digits", size=3, seed=5)]
    assert ids != [e["metadata"]["task"]["task_id"] for e in create_dataset("digits", size=3, seed=6)]


@pytest.mark.parametrize(("args", "knobs", "fragment"), [
    (("nope",), {}, "unknown family 'nope'"),
    (("digits",), {"ops": 3}, "unknown knob 'ops'; the knobs are difficulty, public_tests, hidden_tests"),
    (("digits",), {"difficulty": 1.5}, "difficulty = 1.5; give a number in [0, 1]"),
    (("digits", 0), {}, "give an integer size >= 1"),
    (("digits", 2, -1), {}, "seed >= 0"),
])
def test_bad_arguments_are_one_line_naming_the_fix(args, knobs, fragment) -> None:
    with pytest.raises(ConfigError) as info:
        create_dataset(*args, **knobs)
    assert fragment in str(info.value) and "\n" not in str(info.value)


@pytest.mark.slow
@pytest.mark.parametrize("name", FAMILIES.names())
def test_every_familys_answers_pass(name: str) -> None:
    data = create_dataset(name, size=2, seed=0)
    assert [score_answer(e["answer"], e) for e in data] == [1.0, 1.0]
    assert data[0]["metadata"]["kind"] in KINDS.names()
