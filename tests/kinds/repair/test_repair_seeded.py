"""Any validated Python function task yields repair tasks: its reference gets the bugs, its tests stay its tests."""

from __future__ import annotations

from dataclasses import replace

import pytest

from spade.config import GenerationConfig
from spade.kinds import validate_drafts
from spade.kinds.repair.seeded import repair_draft
from spade.records import PYTHON_FUNCTION
from tests.kinds.repair.test_repair_kind import COUNT_ABOVE

SEED_TASK = replace(COUNT_ABOVE, task_id="file/count_above", kind=PYTHON_FUNCTION, params={},
                    reference_solution="def count_above(xs: list[int], k: int) -> int:\n    n = 0\n    for x in xs:\n"
                                       "        if x > k:\n            n += 1\n    return n\n")


def test_a_file_task_yields_repair_tasks_with_its_own_tests(pool):
    drafts = [repair_draft(SEED_TASK, d, 0, i) for d in (0.0, 1.0) for i in range(2)]
    assert drafts == [repair_draft(SEED_TASK, d, 0, i) for d in (0.0, 1.0) for i in range(2)]
    assert len({d.task_id for d in drafts}) == 4
    # Difficulty 1 asks for 3 bugs, but only lines 2 and 4 (or 2 and 5) are apart: the reference takes 2.
    assert [d.params["bugs"] for d in drafts] == [1, 1, 2, 2]
    outcomes = validate_drafts(drafts, pool, GenerationConfig())
    accepted = [o.task for o in outcomes if o.accepted]
    assert len(accepted) >= 3, [o.details for o in outcomes]
    for task in accepted:
        assert task.kind == "repair" and task.reference_solution == SEED_TASK.reference_solution
        assert sorted(repr(t.args) for t in task.all_tests) == sorted(repr(t.args) for t in SEED_TASK.all_tests)
        assert [t.expected for t in sorted(task.all_tests, key=repr)] == \
            [t.expected for t in sorted(SEED_TASK.all_tests, key=repr)]


def test_tasks_without_code_to_break_or_tests_to_show_are_refused():
    with pytest.raises(ValueError, match="reference_solution"):
        repair_draft(replace(SEED_TASK, reference_solution=None), 0.0, 0, 0)
    with pytest.raises(ValueError, match="check"):
        repair_draft(replace(SEED_TASK, provenance={"check": "def check(f):\n    assert f([], 0) == 0\n"}), 0.0, 0, 0)
    with pytest.raises(ValueError, match="Python function tasks"):
        repair_draft(COUNT_ABOVE, 0.0, 0, 0)
