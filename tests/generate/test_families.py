"""Contract of every registered family: drafting is a pure, varied function and passes static validation."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spade.generate import draft_task, draft_tasks, get_family
from spade.generate.registry import resolve_families
from spade.validate.static import check_draft
from spade.validate.types import is_json

FAMILIES = [f.name for f in resolve_families([])]  # the Python function families; other kinds test theirs
DIFFICULTIES = (0.0, 0.5, 1.0)


def test_there_are_at_least_twenty_families_across_the_required_areas():
    tags = {t for name in FAMILIES for t in get_family(name).tags}
    assert len(FAMILIES) >= 20
    for area in ("list", "string", "dict", "number_theory", "search", "sort", "recursion", "dynamic_programming",
                 "simulation", "parsing", "matrix"):
        assert area in tags, area


@pytest.mark.parametrize("name", FAMILIES)
@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_drafting_is_deterministic_and_statically_valid(name, difficulty):
    first = draft_task(name, difficulty, seed=7, index=3, n_public=3, n_hidden=5)
    again = draft_task(name, difficulty, seed=7, index=3, n_public=3, n_hidden=5)
    assert first == again
    assert check_draft(first) == []
    assert first.provenance == {"source": "procedural", "family": name, "seed": 7, "index": 3}
    assert first.params["op"] and first.task_id.startswith(name + "-")
    assert all(is_json(list(args)) for args in first.all_inputs)
    assert len(first.hidden_inputs) >= len(first.public_inputs)
    json.dumps(first.params)


@pytest.mark.parametrize("name", FAMILIES)
def test_different_seeds_and_indices_give_different_tasks(name):
    drafts = [draft_task(name, 0.5, seed, index, 3, 5) for seed in (0, 1) for index in range(4)]
    assert len({d.task_id for d in drafts}) == len(drafts)
    assert len({json.dumps(d.all_inputs) for d in drafts}) > 1


def test_easy_tasks_are_one_plain_sentence_with_short_references():
    for name in FAMILIES:
        d = draft_task(name, 0.0, 0, 0, 3, 5)
        assert d.description.count(". ") <= 1, d.description
        assert len(d.reference_solution.splitlines()) <= 8, d.reference_solution


def test_difficulty_changes_what_is_asked():
    easy = {draft_task(n, 0.0, 0, i, 3, 5).params["op"] for n in FAMILIES for i in range(3)}
    hard = {draft_task(n, 1.0, 0, i, 3, 5).params["op"] for n in FAMILIES for i in range(3)}
    assert not easy & hard


def test_draft_tasks_uses_the_difficulty_of_each_family_and_consecutive_indices():
    drafts = draft_tasks(["list_aggregate", "primes"], {"list_aggregate": 0.0, "primes": 1.0}, 5, 10, 12, 3, 5)
    assert [d.provenance["index"] for d in drafts] == list(range(10, 22))
    for d in drafts:
        assert d.difficulty == (0.0 if d.family == "list_aggregate" else 1.0)
    assert drafts == draft_tasks(["primes", "list_aggregate"], {"list_aggregate": 0.0, "primes": 1.0}, 5, 10, 12, 3, 5)


@settings(max_examples=40, deadline=None)
@given(name=st.sampled_from(FAMILIES), difficulty=st.floats(0, 1), seed=st.integers(0, 2**31), index=st.integers(0, 10**6))
def test_drafting_is_a_pure_function_of_its_arguments(name, difficulty, seed, index):
    assert draft_task(name, difficulty, seed, index, 2, 4) == draft_task(name, difficulty, seed, index, 2, 4)
