"""The builtin evaluation set: its shape, its agreement with the definitions, and its references passing."""

from __future__ import annotations

import pytest

from spade.evaluate.data.build_builtin import specs, task_record
from spade.evaluate.suites import load_suite
from spade.records import ExecStatus, Task
from spade.sandbox import SandboxPool
from spade.taskio import task_to_dict

TASKS = load_suite("builtin")


def test_builtin_set_has_at_least_sixty_tasks_with_unique_ids() -> None:
    assert len(TASKS) >= 60
    assert len({t.task_id for t in TASKS}) == len(TASKS)


def test_builtin_set_has_at_least_twenty_five_easy_tasks() -> None:
    assert sum("easy" in t.tags for t in TASKS) >= 25


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.task_id)
def test_every_task_is_tagged_eval_and_has_three_public_and_five_hidden_tests(task: Task) -> None:
    assert task.tags[0] == "eval" and len(task.tags) >= 3
    assert len(task.test_cases) == 3
    assert len(task.hidden_test_cases) == 5
    assert task.reference_solution and task.signature in task.reference_solution


def test_jsonl_matches_the_definitions_it_was_built_from() -> None:
    # Guards against editing a definition without re-running build_builtin.
    shipped = {t.task_id: task_to_dict(t) for t in TASKS}
    for spec in specs():
        stored = shipped[f"builtin/{spec['name']}"]
        expected = [c["expected"] for c in stored["test_cases"] + stored["hidden_test_cases"]]
        rebuilt = task_record(spec, expected)
        for key in ("description", "signature", "difficulty", "tags", "reference_solution"):
            assert stored[key] == rebuilt[key], (spec["name"], key)
        assert [c["input"] for c in stored["test_cases"]] == spec["public"]
        assert [c["input"] for c in stored["hidden_test_cases"]] == spec["hidden"]
    assert len(shipped) == len(specs())


def test_every_reference_scores_one_through_the_grader(pool: SandboxPool) -> None:
    results = pool.score_many([(t, t.reference_solution) for t in TASKS])
    failing = [(t.task_id, r.status, [o for o in r.tests if o.status.value != "passed"])
               for t, r in zip(TASKS, results) if r.score != 1.0]
    assert not failing
    assert all(r.status is ExecStatus.PASSED and len(r.tests) == 8 for r in results)


def test_stored_expected_values_equal_a_fresh_run_of_each_reference(pool: SandboxPool) -> None:
    from spade.evaluate.data.build_builtin import expected_values

    by_id = {t.task_id: t for t in TASKS}
    for spec in specs():
        task = by_id[f"builtin/{spec['name']}"]
        stored = [c.expected for c in task.all_tests]
        assert expected_values(pool, spec) == stored, spec["name"]


def test_a_wrong_solution_fails_the_hidden_tests_of_an_easy_task(pool: SandboxPool) -> None:
    # The hidden tests must catch a solution that only handles the public examples' shape.
    task = next(t for t in TASKS if t.task_id == "builtin/clamp")
    result = pool.score(task, "def clamp(x, lo, hi):\n    return max(lo, x)\n")
    assert result.status is ExecStatus.FAILED
    assert result.hidden_score < 1.0
