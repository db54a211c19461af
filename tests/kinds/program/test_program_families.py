"""The program families' contract, through the real sandbox: every family at several difficulties drafts tasks
that validation accepts, with expected outputs taken from running the reference; drafting is deterministic and the
difficulty changes what is asked."""

from __future__ import annotations

import pytest

from spade.config import GenerationConfig
from spade.generate.procedural import draft_task, heldout_draft
from spade.generate.registry import family_names, get_family, resolve_families
from spade.kinds import validate_drafts
from spade.records import PYTHON_FUNCTION

PROGRAM_FAMILIES = [f for f in family_names() if f.startswith("program_")]


def test_there_are_five_program_families_all_of_the_program_kind():
    assert len(PROGRAM_FAMILIES) >= 5
    assert {get_family(f).kind for f in PROGRAM_FAMILIES} == {"program"}
    assert all(f.kind == PYTHON_FUNCTION for f in resolve_families([]))  # not drawn unless asked for


@pytest.mark.parametrize("family", PROGRAM_FAMILIES)
def test_every_family_validates_at_every_difficulty_with_outputs_from_the_reference(pool, family):
    drafts = [draft_task(family, d, 3, i, 3, 5) for d in (0.0, 0.5, 1.0) for i in range(2)]
    outcomes = validate_drafts(drafts, pool, GenerationConfig())
    assert [o.reasons for o in outcomes if not o.accepted] == []
    for draft, outcome in zip(drafts, outcomes):
        task = outcome.task
        assert task.kind == "program" and task.family == family and task.reference_cpu_s > 0
        assert len(task.all_tests) >= 8 and len(task.hidden_test_cases) >= 4
        assert all(isinstance(c.expected, str) and c.expected.strip() for c in task.all_tests[:1])
        assert [c.args for c in task.all_tests][:8] == [tuple(a) for a in draft.all_inputs]
        assert task.params.get("mutant_kill_ratio", 1.0) >= GenerationConfig().mutant_kill_ratio


@pytest.mark.parametrize("family", PROGRAM_FAMILIES)
def test_drafting_is_deterministic_and_difficulty_changes_the_task(family):
    assert draft_task(family, 0.4, 1, 2, 3, 5) == draft_task(family, 0.4, 1, 2, 3, 5)
    easy = {draft_task(family, 0.0, 1, i, 3, 5).description for i in range(6)}
    hard = {draft_task(family, 1.0, 1, i, 3, 5).description for i in range(6)}
    assert easy.isdisjoint(hard)
    assert heldout_draft(family, 0.4, 0, 3, 5).task_id != draft_task(family, 0.4, 0, 0, 3, 5).task_id
