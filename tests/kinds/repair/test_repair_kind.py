"""The repair kind end to end through the real sandbox: families validate, the grading path judges fixes on every
test (hidden ones included), the evaluator grades samples, task files round trip and `spade validate` checks them."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console

from spade.commands.validate import validate_command
from spade.config import GenerationConfig, RewardConfig, SpadeConfig
from spade.evaluate.evaluator import grade_samples
from spade.generate import draft_task, family_names, get_family
from spade.kinds import KINDS, kind_of, validate_drafts, validate_tasks
from spade.kinds.repair.validation import what_it_did
from spade.policy.prompts import build_prompt
from spade.records import Completion, ExecStatus, Task, TestCase, TestStatus
from spade.rollout import Grader
from spade.taskio import load_tasks, task_from_dict, task_to_dict

REPAIR_FAMILIES = [n for n in family_names() if get_family(n).kind == "repair"]
REFERENCE = "def count_above(xs: list[int], k: int) -> int:\n    return sum(1 for x in xs if x > k)\n"
BUGGY = "def count_above(xs: list[int], k: int) -> int:\n    return sum(1 for x in xs if x >= k)\n"
FIXED = "def count_above(xs, k):\n    n = 0\n    for x in xs:\n        if k < x:\n            n += 1\n    return n\n"
HARD_CODED = ("def count_above(xs, k):\n    if xs == [1, 2, 3] and k == 2:\n        return 1\n"
              "    if xs == [5] and k == 0:\n        return 1\n    return sum(1 for x in xs if x >= k)\n")
COUNT_ABOVE = Task(
    "repair/count_above", "Return how many numbers in xs are greater than k.",
    "def count_above(xs: list[int], k: int) -> int:", "count_above", 0.3,
    test_cases=(TestCase(([1, 2, 3], 2), 1), TestCase(([5], 0), 1)),
    hidden_test_cases=(TestCase(([2, 2], 2), 0), TestCase(([], 1), 0), TestCase(([3, 4], 9), 0),
                       TestCase(([7, 1], 1), 1), TestCase(([-1, 0, 1], -1), 2)),
    reference_solution=REFERENCE, params={"buggy_code": BUGGY, "bugs": 1}, kind="repair",
)
CFG = GenerationConfig()


def test_the_repair_kind_and_its_families_are_registered():
    assert "repair" in KINDS.names()
    assert set(REPAIR_FAMILIES) == {"repair_operator", "repair_boundary", "repair_branch", "repair_multi"}


def test_every_repair_family_validates_through_the_sandbox_at_every_difficulty(pool):
    drafts = [draft_task(name, d, 11, i, 3, 5) for name in REPAIR_FAMILIES for d in (0.0, 0.5, 1.0) for i in range(2)]
    outcomes = validate_drafts(drafts, pool, CFG)
    accepted = [(d, o.task) for d, o in zip(drafts, outcomes) if o.accepted]
    for name in REPAIR_FAMILIES:
        for difficulty in (0.0, 0.5, 1.0):  # at least one of the two drafts of each setting makes a repair task
            assert any(d.family == name and d.difficulty == difficulty for d, _ in accepted), (name, difficulty)
    tasks = [t for _, t in accepted]
    for draft, task in accepted:
        assert task.kind == "repair" and task.reference_solution == draft.reference_solution
        assert "candidates" not in task.params and len(task.params["bug_kinds"]) == draft.params["bugs"]
        assert {json.dumps(t.args) for t in task.all_tests} >= {json.dumps(list(a)) for a in draft.all_inputs}
    references = kind_of(tasks[0]).execute(pool, [(t, t.reference_solution) for t in tasks])
    assert [t.task_id for t, r in zip(tasks, references) if not r.passed] == []  # expected values from the run
    buggy = kind_of(tasks[0]).execute(pool, [(t, t.params["buggy_code"]) for t in tasks])
    for task, result in zip(tasks, buggy):
        shown = task.params["failing_test"]
        n_public = len(task.test_cases)
        assert result.tests[shown["index"]].status is not TestStatus.PASSED and shown["index"] < n_public
        assert what_it_did(result.tests[shown["index"]]) == shown["did"]
        assert any(t.status is not TestStatus.PASSED for t in result.tests[n_public:])  # a hidden test fails too
    some = drafts[::5]  # one per family and a spread of difficulties, validated again: the same tasks come back
    again = validate_drafts([draft_task(d.family, d.difficulty, 11, d.provenance["index"], 3, 5) for d in some],
                            pool, CFG)

    def unmeasured(o):  # CPU time varies
        return o.task and replace(o.task, reference_cpu_s=None)

    assert [unmeasured(o) for o in again] == [unmeasured(o) for o in outcomes[::5]]


def test_harder_repair_drafts_carry_more_bugs_and_subtler_targets():
    easy, hard = draft_task("repair_multi", 0.0, 1, 1, 3, 5), draft_task("repair_multi", 1.0, 1, 1, 3, 5)
    assert (easy.params["bugs"], hard.params["bugs"]) == (2, 3)
    assert easy.params["target_fail_share"] > hard.params["target_fail_share"]


def test_a_file_repair_task_validates_and_gets_its_failing_test_computed(pool):
    [outcome] = validate_tasks([COUNT_ABOVE], pool, CFG)
    assert outcome.accepted, outcome.details
    task = outcome.task
    assert task.kind == "repair"
    assert task.params["failing_test"] == {"index": 0, "did": "returned 2"}
    assert task.params["fail_share"] == round(4 / 7, 4)


@pytest.mark.parametrize(("buggy", "failing_test", "reason"), [
    ("def count_above(xs: list[int], k: int) -> int:\n    return sum(1 for x in xs if k < x)\n", None,
     "bug_not_caught"),  # the "bug" passes every test
    ("def count_above(xs, k):\n    return sum(1 for x in xs if x > k) + (xs == [2, 2])\n", None, "bug_not_shown"),
    ("def count_above(xs, k):\n    return sum(1 for x in xs if x > k) + (k == 0)\n", None, "bug_hidden_pass"),
    (REFERENCE, None, "bug_is_reference"),
    ("def other(xs, k):\n    return 0\n", None, "buggy_code_invalid"),
    ("def count_above(xs, k):\n    return sum(1 for x in xs if x >= k\n", None, "buggy_code_invalid"),
    (BUGGY, {"index": 1, "did": "returned 1"}, "failing_test_mismatch"),  # the buggy code passes test 1
    (BUGGY, {"index": 0, "did": "returned 3"}, "failing_test_mismatch"),  # it returned 2
    (None, None, "no_buggy_code"),
])
def test_broken_repair_tasks_are_rejected_with_a_reason(pool, buggy, failing_test, reason):
    params = {"bugs": 1} | ({"buggy_code": buggy} if buggy is not None else {})
    if failing_test is not None:
        params["failing_test"] = failing_test
    [outcome] = validate_tasks([replace(COUNT_ABOVE, params=params)], pool, CFG)
    assert not outcome.accepted and outcome.reasons == (reason,), outcome.details


def test_a_repair_task_without_a_reference_is_rejected_before_anything_runs():
    [outcome] = validate_tasks([replace(COUNT_ABOVE, reference_solution=None)], None, CFG)
    assert outcome.reasons == ("no_reference",)


@pytest.fixture(scope="module")
def validated(pool):
    [outcome] = validate_tasks([COUNT_ABOVE], pool, CFG)
    return outcome.task


def test_the_prompt_shows_the_buggy_code_and_the_failing_test_but_no_hidden_test(validated):
    for variant in range(3):
        prompt = build_prompt(validated, variant)
        text = prompt.messages[-1]["content"]
        assert f"```python\n{BUGGY.strip()}\n```" in text
        assert "count_above([1, 2, 3], 2) should return 1, but it returned 2" in text
        assert "[2, 2]" not in text and "[7, 1]" not in text and REFERENCE.strip() not in text
        assert prompt.prefill == "```python\n"


def test_the_easiest_repairs_say_where_the_bugs_are(validated):
    assert "line" not in build_prompt(validated).messages[-1]["content"].split("```")[0]
    one = replace(validated, params={**validated.params, "show_bug_lines": True, "bug_lines": [2]})
    assert "It has a bug on line 2:" in build_prompt(one).messages[-1]["content"]
    two = replace(one, params={**one.params, "bugs": 2, "bug_lines": [2, 5]})
    assert "It has 2 bugs on lines 2 and 5:" in build_prompt(two).messages[-1]["content"]
    easy = draft_task("repair_operator", 0.1, 0, 0, 3, 5)
    assert easy.params["show_bug_lines"] and not draft_task("repair_operator", 0.5, 0, 0, 3, 5).params["show_bug_lines"]


def test_the_grading_path_passes_a_fix_and_fails_the_bug_a_hard_coded_answer_and_garbage(pool, validated):
    texts = [FIXED + "```", BUGGY + "```", HARD_CODED + "```", "I think the bug is on line 2."]
    rollouts = Grader(pool, RewardConfig()).grade([validated] * 4, [Completion(t) for t in texts],
                                                  ids=["fix", "bug", "hard", "prose"])
    fixed, unchanged, hard_coded, prose = rollouts
    assert fixed.passed and fixed.reward.total > 1
    assert not unchanged.passed and unchanged.result.status is ExecStatus.FAILED
    assert hard_coded.result.public_score == 1.0 and hard_coded.result.hidden_score < 1.0  # the hidden tests catch it
    assert not hard_coded.passed and hard_coded.reward.hardcoding_suspected
    assert prose.candidate.code == "" and prose.reward.format_penalty == RewardConfig().format_penalty


def test_the_evaluator_grades_repair_samples(pool, validated, tmp_path):
    samples = tmp_path / "samples.jsonl"
    lines = [FIXED, BUGGY, "```python\n" + FIXED + "```\nThe comparison was wrong."]
    samples.write_text("".join(json.dumps({"task_id": validated.task_id, "completion": c}) + "\n" for c in lines))
    report = grade_samples(pool, [validated], samples, ks=(1,), suite="repair").to_dict()
    assert report["n_tasks"] == 1 and report["pass_at_k"]["1"] == pytest.approx(2 / 3)


def test_a_repair_task_round_trips_through_a_task_file(validated, tmp_path):
    assert task_from_dict(json.loads(json.dumps(task_to_dict(validated)))) == validated
    path = tmp_path / "repair.jsonl"
    path.write_text(json.dumps(task_to_dict(validated)) + "\n")
    assert load_tasks(path) == [validated]


def _spade_validate(tmp_path, tasks):
    path = tmp_path / "tasks.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in tasks))
    out = io.StringIO()
    code = validate_command(str(path), SpadeConfig(), Console(file=out, width=300))
    return code, out.getvalue()


def test_spade_validate_accepts_a_good_repair_file_and_rejects_a_broken_one_with_reasons(validated, tmp_path):
    good = task_to_dict(validated)
    code, text = _spade_validate(tmp_path, [good])
    assert code == 0, text
    broken = dict(good, task_id="not-a-bug", params=dict(good["params"], buggy_code=FIXED, failing_test=None))
    del broken["params"]["failing_test"]
    code, text = _spade_validate(tmp_path, [good, broken])
    assert code == 1
    assert "bug_not_caught" in text and "passes every test" in text
    assert "1 accepted, 1 rejected of 2 tasks" in text


def test_the_readme_example_is_a_valid_repair_task(pool):
    readme = (Path(__file__).parents[3] / "docs" / "kinds.md").read_text()
    start = readme.index('{"task_id": "repair/count_above"')
    task = task_from_dict(json.loads(readme[start:readme.index("```", start)]))
    [outcome] = validate_tasks([task], pool, CFG)
    assert outcome.accepted, outcome.details
