"""The math kind end to end through the real sandbox: every family's drafts validate (expected values from the
judge's run), the loop's grading path and the evaluator judge answers by equivalence, task files round-trip and
`spade validate` accepts good files and rejects broken ones with reasons."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

from spade.commands.validate import validate_command
from spade.config import GenerationConfig, RewardConfig, SpadeConfig
from spade.evaluate.evaluator import grade_samples
from spade.generate.procedural import draft_task
from spade.kinds import KINDS, kind_of, validate_drafts
from spade.policy.prompts import build_prompt
from spade.records import Completion, ExecStatus, Task, TestCase
from spade.registry import FAMILIES
from spade.rollout import Grader
from spade.taskio import load_tasks, task_from_dict, task_to_dict

MATH_FAMILIES = sorted(n for n in FAMILIES.names() if FAMILIES.get(n).kind == "math")
DIFFICULTIES = (0.0, 0.5, 1.0)


def math_task(task_id: str, form: str, expected: str, reference: str | None = None, description: str = "?") -> Task:
    return Task(task_id, description, form, "answer", 0.5, test_cases=(TestCase((), expected),),
                reference_solution=reference, kind="math")


QUARTER = math_task("m/quarter", "number", "3/4", "3/4", "Compute 1/2 + 1/4.")
ROOTS = math_task("m/roots", "numbers in x", "{-3, 2}", "x = 2, x = -3", "Solve x^2 + x - 6 = 0.")
SQUARE = math_task("m/square", "polynomial in x", "x**2 + 2*x + 1", "x^2 + 2x + 1", "Expand (x + 1)^2.")


@pytest.fixture(scope="module")
def validated(pool):
    drafts = [draft_task(f, d, seed, 0, 3, 3) for f in MATH_FAMILIES for d in DIFFICULTIES for seed in (0, 1)]
    return drafts, validate_drafts(drafts, pool, GenerationConfig())


def test_the_math_kind_and_its_families_are_registered():
    assert "math" in KINDS.names()
    assert MATH_FAMILIES == ["math_arithmetic", "math_combinatorics", "math_linear", "math_polynomial",
                             "math_quadratic", "math_sequence"]


def test_every_family_validates_at_every_difficulty_with_expected_values_from_the_judge(validated):
    drafts, outcomes = validated
    rejected = [(d.family, d.difficulty, d.reference_solution, o.details) for d, o in zip(drafts, outcomes)
                if not o.accepted]
    assert not rejected
    for outcome in outcomes:
        task = outcome.task
        assert task.kind == "math" and task.hidden_test_cases == () and len(task.test_cases) == 1
        assert isinstance(task.test_cases[0].expected, str) and task.test_cases[0].expected
    by_form = {o.task.family: o.task.test_cases[0].expected for o in outcomes}
    assert "**" in by_form["math_polynomial"]  # SymPy's canonical printing, not the family's own text


def test_drafts_are_deterministic_and_difficulty_changes_what_is_asked():
    for family in MATH_FAMILIES:
        assert draft_task(family, 0.5, 3, 7, 3, 3) == draft_task(family, 0.5, 3, 7, 3, 3)
        easy = {draft_task(family, 0.0, s, 0, 3, 3).params.__repr__() for s in range(5)}
        hard = {draft_task(family, 1.0, s, 0, 3, 3).params.__repr__() for s in range(5)}
        assert easy.isdisjoint(hard), family


EASIEST = {  # difficulty 0: one step, small numbers (the 135M policy's level; see the families' docstrings)
    "math_arithmetic": r"Compute [1-9] \+ [1-9]\.",
    "math_combinatorics": r"A shop has [2-5] \w+ and [2-5] [\w ]+\. In how many ways can you choose one [\w ]+\?",
    "math_linear": r"Solve for x: x \+ [1-5] = ([2-9]|10)\.",
    "math_polynomial": r"Expand and simplify: [2-5]\(x [+-] [1-3]\)\.",
    "math_quadratic": r"Solve for x: \(x - [1-4]\)\(x - [1-4]\) = 0\. Give every real solution\.",
    "math_sequence": r"The sequence (\d+), \d+, \d+, \d+, \d+, \.\.\. continues by the same rule\. What is the next term\?",
}


@pytest.mark.parametrize("family", MATH_FAMILIES)
def test_the_easiest_level_is_one_step_and_the_next_level_is_harder(family):
    import re

    for seed in range(12):
        easy = draft_task(family, 0.0, seed, 0, 3, 3)
        assert re.fullmatch(EASIEST[family], easy.description), easy.description
    harder = [draft_task(family, 0.25, seed, 0, 3, 3).description for seed in range(12)]
    assert sum(bool(re.fullmatch(EASIEST[family], text)) for text in harder) <= 6, harder  # some may happen to look easy
    sequence = draft_task("math_sequence", 0.0, 5, 0, 3, 3).description
    terms = [int(t) for t in sequence.split("sequence ")[1].split(", ...")[0].split(", ")]
    assert [b - a for a, b in zip(terms, terms[1:])] == [1, 1, 1, 1]  # counting on


def test_the_prompt_shows_the_problem_and_the_answer_form_never_the_expected_value():
    prompt = build_prompt(ROOTS)
    text = "\n".join(m["content"] for m in prompt.messages)
    assert "Solve x^2 + x - 6 = 0." in text and "Answer:" in text and "{-3, 2}" not in text
    assert prompt.prefill == "Answer: "


@pytest.mark.parametrize(("completion", "prefilled", "answer"), [
    ("3/4\n\nThis is because a quarter is 1/4.", True, "3/4"),  # continues the prefill
    ("3/4\n\nThe answer is 1/2.", True, "3/4"),  # the line after the prefill is the answer; later chatter is not
    ("Let me see.\n\nThe answer is 1/2.", True, "1/2."),  # ... unless it is none: then the last answer stated wins
    ("Halve it, then add.\nAnswer: 3/4", True, "3/4"),  # a server that cannot prefill writes its own line
    ("Answer: 3/4", True, "3/4"),  # ... even as its first line
    ("3/4", False, "3/4"),
    ("Halve it.\nThen add.", False, ""),
])
def test_extraction_continues_the_answer_prefill(completion, prefilled, answer):
    assert kind_of(ROOTS).extract(ROOTS, completion, prefilled=prefilled) == answer


def test_the_loops_grading_path_judges_by_equivalence(pool):
    tasks = [QUARTER, QUARTER, QUARTER, QUARTER, ROOTS, ROOTS, ROOTS, SQUARE, SQUARE, SQUARE]
    texts = ["1/2 + 1/4 = 3/4\nAnswer: 3/4", "It is \\boxed{0.75}.", "Answer: 1/2 + 1/4", "I give up.\nSorry.",
             "Answer: x = -3 or x = 2", "Answer: x = 2", "Answer: {2, -3, 1}",
             "Answer: 1 + 2x + x^2", "Answer: (x + 1)^2", "Answer: import os"]
    rollouts = Grader(pool, RewardConfig()).grade(tasks, [Completion(t) for t in texts],
                                                  ids=[f"c{i}" for i in range(len(texts))], prefilled=False)
    assert [r.passed for r in rollouts] == [True, True, False, False, True, False, False, True, False, False]
    statuses = [r.result.status for r in rollouts]
    assert statuses[2] is ExecStatus.FAILED  # the question itself is not an answer of the form "number"
    assert statuses[3] is ExecStatus.NO_ENTRY_POINT and statuses[9] is ExecStatus.SYNTAX_ERROR
    assert rollouts[3].reward.format_penalty > 0 and rollouts[9].reward.format_penalty > 0
    assert rollouts[8].reward.format_penalty == 0  # wrong form is a wrong answer, not a format failure
    assert rollouts[0].reward.total == pytest.approx(1 + RewardConfig().difficulty_bonus * 0.5)
    assert "not expanded" in (rollouts[8].result.tests[0].error or "")


def test_the_evaluator_grades_math_samples(pool, tmp_path):
    samples = tmp_path / "samples.jsonl"
    lines = [("m/quarter", "Answer: 3/4"), ("m/quarter", "Answer: 4/3"), ("m/roots", "\\boxed{2, -3}")]
    samples.write_text("".join(json.dumps({"task_id": t, "completion": c}) + "\n" for t, c in lines))
    report = grade_samples(pool, [QUARTER, ROOTS], samples, ks=(1,), suite="math").to_dict()
    assert report["n_tasks"] == 2
    assert report["pass_at_k"]["1"] == pytest.approx((0.5 + 1.0) / 2)


def test_a_validated_task_round_trips_through_the_task_file_schema(validated):
    for outcome in validated[1][::5]:
        d = json.loads(json.dumps(task_to_dict(outcome.task)))
        assert d["kind"] == "math" and task_from_dict(d) == outcome.task


def _validate_file(tmp_path, tasks: list[dict]) -> tuple[int, str]:
    path = tmp_path / "math.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in tasks))
    out = io.StringIO()
    code = validate_command(str(path), SpadeConfig(), Console(file=out, width=400))
    return code, out.getvalue()


def test_spade_validate_accepts_a_good_math_file_and_rejects_broken_ones_with_reasons(pool, tmp_path):
    good = [task_to_dict(t) for t in (QUARTER, ROOTS, SQUARE)]
    code, text = _validate_file(tmp_path, good)
    assert code == 0, text
    assert len(load_tasks(tmp_path / "math.jsonl")) == 3
    broken = [
        {**good[0], "task_id": "wrong_expected", "test_cases": [{"input": [], "expected": "4/3"}]},
        {**good[2], "task_id": "unexpanded_reference", "reference_solution": "(x + 1)^2"},
        {**good[0], "task_id": "bad_form", "signature": "def answer():"},
        {**good[0], "task_id": "hostile_reference", "reference_solution": "__import__('os').system('id')"},
        {**good[0], "task_id": "two_tests", "test_cases": [{"input": [], "expected": "3/4"}] * 2},
    ]
    code, text = _validate_file(tmp_path, broken)
    assert code == 1
    for reason in ("expected_mismatch", "reference_form", "answer_form", "reference_refused", "tests_shape"):
        assert reason in text, reason
    assert "0 accepted, 5 rejected" in text and "Traceback" not in text


def test_a_task_file_naming_an_unknown_field_or_kind_is_refused_in_one_line(tmp_path):
    from spade.errors import TaskFormatError

    with pytest.raises(TaskFormatError, match="kind"):
        task_from_dict({**task_to_dict(QUARTER), "kind": "maths"})
    assert kind_of(QUARTER).name == "math"


def test_spade_exec_judges_an_answer_file_for_a_math_task(tmp_path, capsys):
    from spade.commands.sandbox import exec_command

    task_file = tmp_path / "quarter.json"
    task_file.write_text(json.dumps(task_to_dict(QUARTER)))
    (tmp_path / "right.txt").write_text("0.75\n")
    (tmp_path / "wrong.txt").write_text("1/4\n")
    cfg = SpadeConfig()
    assert exec_command(str(task_file), str(tmp_path / "right.txt"), True, cfg) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "passed"
    assert exec_command(str(task_file), str(tmp_path / "wrong.txt"), True, cfg) == 1


@pytest.mark.parametrize("reply", ["8 * 7 * 6 = 336", "336 ways", "336"])
def test_spade_exec_takes_the_answer_as_the_loop_does_and_raw_runs_the_text_as_written(tmp_path, capsys, pool,
                                                                                        reply):
    from spade.commands.sandbox import exec_command

    task = math_task("m/ways", "number", "336", "8 * 7 * 6", "In how many ways can 3 of 8 runners podium?")
    task_file = tmp_path / "ways.json"
    task_file.write_text(json.dumps(task_to_dict(task)))
    (tmp_path / "reply.txt").write_text(reply + "\n")
    cfg = SpadeConfig()
    assert exec_command(str(task_file), str(tmp_path / "reply.txt"), True, cfg) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["status"] == "passed" and result["score"] == 1.0
    as_reply = Grader(pool, RewardConfig()).grade([task], [Completion(reply)], ids=["c"], prefilled=False)[0]
    assert as_reply.result.status is ExecStatus.PASSED  # the loop's verdict on the same text, for comparison
    raw = exec_command(str(task_file), str(tmp_path / "reply.txt"), True, cfg, raw=True)
    assert raw == (0 if reply == "336" else 1)


def test_a_math_file_without_references_is_checked_statically(tmp_path):
    bare = {**task_to_dict(QUARTER), "task_id": "bare"}
    del bare["reference_solution"]
    broken = {**bare, "task_id": "bare_broken", "test_cases": [{"input": [1], "expected": 3}]}
    code, text = _validate_file(tmp_path, [bare, broken])
    assert code == 1 and "static_only" in text and "tests_shape" in text
    assert "1 accepted, 1 rejected" in text


def test_every_prompt_variant_asks_for_the_answer_line_and_states_the_form():
    for variant in range(3):
        prompt = build_prompt(SQUARE, variant)
        text = "\n".join(m["content"] for m in prompt.messages)
        assert "Answer:" in text and "expanded polynomial in x" in text and "Expand (x + 1)^2." in text
    assert len({build_prompt(SQUARE, v).hash for v in range(3)}) == 3


def test_the_problem_comes_last_alone_in_the_user_message_and_the_instructions_in_the_system_message():
    # Measured on the embedded 135M model: with the form and answer-line instructions after the problem it answered 3
    # of 40 easy number problems right, with them in the system message and the problem last 10 of 40.
    for variant in range(3):
        system, user = build_prompt(QUARTER, variant).messages
        assert system["role"] == "system" and user["role"] == "user"
        assert user["content"] == "Compute 1/2 + 1/4."
        assert "Answer:" in system["content"] and "fraction in lowest terms" in system["content"]


def test_the_grading_path_takes_the_line_after_the_prefill_and_the_result_an_equation_states(pool):
    tasks = [QUARTER] * 5 + [ROOTS]
    texts = ["3/4\n\nThe answer is 1/2, which is a fraction.", "1/2 + 1/4 = 3/4", "1/2 + 1/4 = 1",
             "1/2\n\nThe answer is 3/4.", "1/4 + 1/4 + 1/4 = 3/4 = 0.75", "x = 2, x = -3\nThe answer is x = 2."]
    rollouts = Grader(pool, RewardConfig()).grade(tasks, [Completion(t) for t in texts],
                                                  ids=[f"p{i}" for i in range(len(texts))], prefilled=True)
    assert [r.passed for r in rollouts] == [True, True, False, False, True, True]
    assert rollouts[2].result.status is ExecStatus.FAILED  # a wrong stated result is a wrong answer


@pytest.mark.slow  # builds the suite and starts the CLI's own pool: about a minute on 2 loaded cores
def test_spade_eval_grades_samples_on_the_heldout_math_suite_by_name(tmp_path, monkeypatch, capsys):
    from spade.cli import main
    from spade.evaluate import heldout
    from spade.evaluate.suites import load_suite, suite_names

    assert {"heldout-math", "heldout-math-dev"} <= set(suite_names())
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(heldout, "KIND_DRAFTS_PER_FAMILY", 2)
    tasks = load_suite("heldout-math")
    assert tasks and {t.kind for t in tasks} == {"math"}
    samples = tmp_path / "samples.jsonl"
    lines = [{"task_id": t.task_id, "completion": f"Answer: {t.reference_solution}"} for t in tasks[:2]]
    lines.append({"task_id": tasks[2].task_id, "completion": "Answer: __import__('os')"})
    samples.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert main(["eval", "--suite", "heldout-math", "--samples", str(samples)]) == 0
    assert "0.667" in capsys.readouterr().out
