"""Every SQL family drafts tasks that validate through the real sandbox: expected values are the reference's
result sets, computed there, deterministic, not empty everywhere, and the tests catch wrong queries."""

from __future__ import annotations

import operator
import re
from dataclasses import replace

import pytest

from spade.config import GenerationConfig
from spade.generate.procedural import draft_task
from spade.generate.registry import family_names, get_family, resolve_families
from spade.kinds import KINDS, validate_drafts
from spade.kinds.sql.dbgen import DOMAINS
from spade.kinds.sql.spec import result_problem, spec_problem

FAMILIES = ("sql_aggregate", "sql_filter", "sql_join", "sql_subquery", "sql_window")
DOMAIN_MEASURES = {d.int for d in DOMAINS.values()}
MAIN_TABLES = {d.m for d in DOMAINS.values()}
DIFFICULTIES = (0.0, 0.25, 0.5, 0.75, 1.0)


def test_the_kind_and_its_families_are_registered_and_not_drawn_as_python_functions():
    assert "sql" in KINDS.names()
    assert set(FAMILIES) <= set(family_names())
    assert all(get_family(f).kind == "sql" for f in FAMILIES)
    assert not set(FAMILIES) & {f.name for f in resolve_families([])}


def test_drafts_are_deterministic_and_each_test_is_a_database():
    for family in FAMILIES:
        a, b = draft_task(family, 0.5, 3, 7, 3, 5), draft_task(family, 0.5, 3, 7, 3, 5)
        assert a == b and a.kind == "sql"
        assert all(len(args) == 1 and spec_problem(args[0], "x") is None for args in a.all_inputs)
    assert draft_task("sql_join", 0.5, 3, 7, 3, 5) != draft_task("sql_join", 0.5, 3, 8, 3, 5)


def test_difficulty_changes_what_is_asked():
    for family in FAMILIES:
        questions = {draft_task(family, d, 0, 0, 3, 5).params["level"] for d in DIFFICULTIES}
        assert questions == {0, 1, 2, 3, 4}


@pytest.mark.parametrize("difficulty", [0.0, 0.25])
def test_first_steps_name_their_table_and_columns_and_show_only_the_tables_they_need(difficulty):
    for family in FAMILIES:
        for seed in range(4):
            draft = draft_task(family, difficulty, seed, 0, 3, 5)
            spec = draft.all_inputs[0][0]
            tables = {t["name"] for t in spec["tables"]}
            used = {a or b for a, b in re.findall(r"\bFROM (\w+)|\bJOIN (\w+)", draft.reference_solution)}
            quoted = set(re.findall(r"\w+", " ".join(re.findall(r"`([^`]+)`", draft.description))))
            assert tables == used and tables <= quoted
            mains = [t for t in spec["tables"] if t["name"] in MAIN_TABLES]
            assert all(t["columns"][-1][0] in DOMAIN_MEASURES for t in mains)  # no nullable text column
            columns = {c for t in spec["tables"] for c, _ in t["columns"]}
            referenced = set(re.findall(r"\w+", draft.reference_solution)) & columns
            assert referenced and referenced <= quoted, draft.description
            assert not re.search(r"[<>]=", draft.reference_solution)  # "at least" / "at most" come later


def test_level_0_filters_subqueries_and_windows_ask_for_the_name_only_as_their_worked_examples_do():
    for family in ("sql_filter", "sql_subquery", "sql_window"):
        for seed in range(12):
            draft = draft_task(family, 0.0, seed, 0, 3, 5)
            assert re.match(r"SELECT name(, ROW_NUMBER\(\)| FROM)", draft.reference_solution), draft.reference_solution
            assert re.findall(r"`(\w+)`", draft.description)[0] == "name"


def test_level_0_aggregates_count_the_rows_of_one_group_as_the_prompts_count_example_does():
    for seed in range(12):
        draft = draft_task("sql_aggregate", 0.0, seed, 0, 3, 5)
        group = draft.params["group"]
        assert re.fullmatch(rf"SELECT COUNT\(\*\) FROM \w+ WHERE \w+ = '{group}'", draft.reference_solution)
        assert f"'{group}'" in draft.description


def test_the_questions_in_words_see_the_whole_database():
    for family in FAMILIES:
        for difficulty in (0.5, 0.75, 1.0):
            spec = draft_task(family, difficulty, 0, 0, 3, 5).all_inputs[0][0]
            assert len(spec["tables"]) == 3 and len(spec["tables"][0]["columns"]) == 6


def test_every_family_at_every_level_validates_in_the_sandbox(pool):
    drafts = [draft_task(f, d, seed, 0, 3, 5) for f in FAMILIES for d in DIFFICULTIES for seed in (0, 1)]
    outcomes = validate_drafts(drafts, pool, GenerationConfig())
    rejected = [(d.task_id, o.reasons, o.details) for d, o in zip(drafts, outcomes) if not o.accepted]
    assert not rejected
    for draft, outcome in zip(drafts, outcomes):
        task = outcome.task
        assert task is not None and task.kind == "sql" and task.reference_solution == draft.reference_solution
        assert len(task.test_cases) == 3 and len(task.hidden_test_cases) == 5
        assert all(result_problem(c.expected, "x") is None for c in task.all_tests)
        assert any(c.expected["rows"] for c in task.all_tests)
        assert outcome.kill_ratio is not None and outcome.kill_ratio >= 0.63
    again = validate_drafts(drafts[:5], pool, GenerationConfig())
    assert [o.task for o in again] == [o.task for o in outcomes[:5]]  # the same results from a second run


def test_expected_values_come_from_running_the_reference(pool):
    draft = draft_task("sql_filter", 0.25, 0, 0, 3, 5)
    (outcome,) = validate_drafts([draft], pool, GenerationConfig())
    knobs = draft.params  # the reference filters one table on one column: redo it by hand
    column, t = (3, knobs["real_t"]) if knobs["measure"] == "real" else (4, knobs["int_t"])
    test = {">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le}[knobs["op"]]
    for case in outcome.task.all_tests:
        main = case.args[0]["tables"][0]
        want = sorted(row[1] for row in main["rows"] if test(row[column], t))
        assert sorted(row[0][1] for row in case.expected["rows"]) == want


@pytest.mark.parametrize("change, reason", [
    ("SELECT name FROM {m} WHERE 1 = 0", "trivial_result"),
    ("SELECT 'x' FROM {m} LIMIT 1", "same_result_everywhere"),
    ("SELECT name, random() FROM {m}", "nondeterministic"),
    ("SELECT nope FROM {m}", "reference_raises"),
    ("DELETE FROM {m}", "reference_refused"),
    ("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r", "reference_timeout"),
])
def test_a_broken_reference_is_rejected_with_its_reason(pool, change, reason):
    draft = draft_task("sql_filter", 0.0, 0, 0, 3, 5)
    table = draft.all_inputs[0][0]["tables"][0]["name"]
    (outcome,) = validate_drafts([replace(draft, reference_solution=change.format(m=table))], pool, GenerationConfig())
    assert not outcome.accepted and outcome.reasons[0] == reason, outcome.details


def test_tests_that_cannot_tell_a_dropped_where_clause_apart_are_weak(pool):
    draft = draft_task("sql_filter", 0.0, 0, 0, 3, 5)
    table = draft.all_inputs[0][0]["tables"][0]["name"]
    # Every row passes this filter, so dropping it changes nothing: the tests are too weak for it.
    (outcome,) = validate_drafts([replace(draft, reference_solution=f"SELECT name FROM {table} WHERE id > -5")],
                                 pool, GenerationConfig())
    assert outcome.reasons == ("weak_tests",)


def test_ties_left_by_an_ordered_reference_and_limit_without_order_by_are_rejected(pool):
    draft = draft_task("sql_aggregate", 1.0, 0, 0, 3, 5)  # ORDER BY average DESC, category: a total order
    assert draft.params["ordered"] is True
    main = draft.all_inputs[0][0]["tables"][0]
    ties = f"SELECT name, {main['columns'][4][0]} AS v FROM {main['name']} ORDER BY v"  # small ints: many ties
    limit = f"SELECT name FROM {main['name']} LIMIT 2"
    outcomes = validate_drafts([draft, replace(draft, reference_solution=ties),
                                replace(draft, reference_solution=limit, params={**draft.params, "ordered": False})],
                               pool, GenerationConfig())
    assert [o.reasons[:1] for o in outcomes] == [(), ("ambiguous_order",), ("nondeterministic",)]
