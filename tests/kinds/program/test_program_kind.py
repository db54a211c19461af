"""The program kind through the loop's grading path, the evaluator, task files and `spade validate`."""

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
from spade.kinds import KINDS, kind_of, validate_tasks
from spade.kinds.program.extract import extract_program
from spade.kinds.program.judge import outputs_match
from spade.policy.prompts import build_prompt
from spade.records import Completion, ExecStatus, TestCase, TestStatus
from spade.rollout import Grader
from spade.taskio import load_tasks, task_from_dict, task_to_dict
from tests.kinds.program.helpers import SUM_MAX, program_task

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "program_task.json"
WRONG = "import sys\ndata = sys.stdin.read().split()\nprint(sum(map(int, data[1:])), data[1])\n"


def test_the_program_kind_is_registered_and_its_prompt_shows_samples_not_hidden_tests():
    task = program_task()
    assert "program" in KINDS.names() and kind_of(task).name == "program"
    prompt = build_prompt(task, 1)
    text = prompt.messages[-1]["content"]
    assert "Sample input 1" in text and "3\n1 2 3" in text and "6 3" in text
    assert "9 -1 9" not in text  # a hidden test's stdin
    assert prompt.prefill == "```python\n"
    assert {build_prompt(task, v).hash for v in range(3)}.__len__() == 3


@pytest.mark.parametrize(("completion", "prefilled", "expected"), [
    ("print(input())\n```\nThis echoes.", True, "print(input())\n"),
    ("Here it is:\n```python\nimport sys\nprint(1)\n```\nDone", False, "import sys\nprint(1)\n"),
    ("```\n\n```\n```py\nx = 1\nprint(x)\n```", False, "x = 1\nprint(x)\n"),
    ("n = int(input())\nprint(n * 2)\nfor i in range(", True, "n = int(input())\nprint(n * 2)\n"),
    ("I cannot solve this.", False, ""),
    ('"""just a docstring"""\n```', True, ""),
    ("Use this:\nimport sys\nprint(sys.stdin.read())\nThat is all.", False, "import sys\nprint(sys.stdin.read())\n"),
])
def test_extraction_keeps_the_whole_program_from_fences_or_prose(completion, prefilled, expected):
    assert extract_program(completion, prefilled=prefilled) == expected


def test_token_match_ignores_spacing_and_exact_match_only_trailing_newlines():
    assert outputs_match(b"6  3\n\n", "6 3\n", "tokens") and not outputs_match(b"6 3 0", "6 3\n", "tokens")
    assert outputs_match(b"6 3", "6 3\n", "exact") and not outputs_match(b"6  3\n", "6 3\n", "exact")
    assert not outputs_match(b"\xff\xfe", "6 3", "tokens")


def test_the_grader_passes_a_right_program_fails_a_wrong_one_and_counts_garbage_as_a_format_failure(pool):
    task = program_task()
    texts = [SUM_MAX + "```", WRONG + "```", "I do not know.", "print(6, 3)\n```",
             "import sys\nd = sys.stdin.read().split()\nprint(sum(map(int, d[1:])),max(map(int, d[1:])), sep='\\n')\n```",
             "def broken(:\n```"]
    rollouts = Grader(pool, RewardConfig()).grade([task] * len(texts), [Completion(t) for t in texts],
                                                  ids=[str(i) for i in range(len(texts))])
    assert [r.passed for r in rollouts] == [True, False, False, False, True, False]
    assert rollouts[0].reward.total > rollouts[1].reward.total
    assert rollouts[2].candidate.code == "" and rollouts[2].result.status is ExecStatus.NO_ENTRY_POINT
    assert rollouts[2].reward.format_penalty == RewardConfig().format_penalty
    hard_coded = rollouts[3].result  # prints the shown test's output: the hidden tests catch it
    assert hard_coded.tests[0].status is TestStatus.PASSED and hard_coded.hidden_score == 0.0
    assert rollouts[5].candidate.code == ""  # nothing parses: a format failure, as for functions
    assert kind_of(task).execute(pool, [(task, "def broken(:\n")])[0].status is ExecStatus.SYNTAX_ERROR
    assert rollouts[0].result.cpu_time_s > 0 and rollouts[0].result.peak_memory_kb > 0


def test_exact_match_tasks_fail_output_with_other_spacing(pool):
    spaced = SUM_MAX.replace("print(sum(nums), max(nums))", "print(sum(nums), ' ', max(nums))")
    results = kind_of(program_task()).execute(pool, [(program_task(match="exact"), spaced),
                                                     (program_task(match="tokens"), spaced)])
    assert [r.passed for r in results] == [False, True]


def test_the_evaluator_grades_program_samples(pool, tmp_path):
    task = program_task()
    samples = tmp_path / "samples.jsonl"
    lines = [("prog/sum_max", f"```python\n{SUM_MAX}```"), ("prog/sum_max", f"```python\n{WRONG}```")]
    samples.write_text("".join(json.dumps({"task_id": t, "completion": c}) + "\n" for t, c in lines))
    report = grade_samples(pool, [task], samples, ks=(1,), suite="programs")
    assert report.to_dict()["pass_at_k"]["1"] == pytest.approx(0.5)


def test_a_program_task_round_trips_through_the_task_schema():
    task = program_task()
    d = task_to_dict(task)
    assert d["kind"] == "program" and d["params"]["output_match"] == "tokens"
    assert task_from_dict(json.loads(json.dumps(d))) == task
    assert task_from_dict({**d, "signature": ""}).signature == ""  # meaningless for programs: may be empty


def test_validation_reproduces_stated_outputs_and_rejects_what_a_trivial_program_passes(pool):
    good = load_tasks(EXAMPLE)[0]
    mismatch = replace(good, task_id="mismatch", test_cases=(replace(good.test_cases[0], expected="7 3\n"),))
    constant = replace(program_task(reference="print(5)\n"), task_id="constant")
    constant = replace(constant, test_cases=tuple(replace(c, expected="5\n") for c in constant.test_cases),
                       hidden_test_cases=tuple(replace(c, expected="5\n") for c in constant.hidden_test_cases))
    silent = replace(constant, task_id="silent", reference_solution="pass\n",
                     test_cases=tuple(replace(c, expected="") for c in constant.test_cases),
                     hidden_test_cases=tuple(replace(c, expected="") for c in constant.hidden_test_cases))
    bad_input = replace(good, task_id="bad_input", test_cases=(replace(good.test_cases[0], args=(3, 4)),))
    outcomes = validate_tasks([good, mismatch, constant, silent, bad_input], pool, GenerationConfig())
    assert [o.accepted for o in outcomes] == [True, False, False, False, False]
    assert [o.reasons[0] for o in outcomes[1:]] == ["expected_mismatch", "constant_output", "empty_output",
                                                    "bad_test_input"]
    assert outcomes[0].task.reference_cpu_s > 0


LAST_WORD = 'import sys\nwords = sys.stdin.read().split()\nif not words:\n    words = ["none"]\nprint(words[-1])\n'


def test_a_hand_written_program_task_is_not_sunk_by_a_mutant_in_an_unreachable_branch(pool):
    cases = [("3 1 2\n", "2\n"), ("5 9\n", "9\n"), ("7 8 4 2\n", "2\n"), ("6\n", "6\n"), ("1 2 3 4 5\n", "5\n")]
    tests = tuple(TestCase((stdin,), out) for stdin, out in cases)
    task = replace(program_task(reference=LAST_WORD, task_id="prog/last"), test_cases=tests[:2],
                   hidden_test_cases=tests[2:], description="Print the last word of the input.")
    (outcome,) = validate_tasks([task], pool, GenerationConfig())
    assert outcome.accepted, outcome.details
    assert outcome.task.params["mutants_equivalent"] >= 1 and outcome.task.all_tests == task.all_tests
    right = Grader(pool, RewardConfig()).grade([outcome.task], [Completion("print(input().split()[-1])\n```")],
                                                ids=["c"])[0]
    assert right.result.score == 1.0, right.result
    (no_probes,) = validate_tasks([task], pool, GenerationConfig(probe_inputs=0))
    assert no_probes.reasons == ("weak_tests",)


NOISY = ("import sys\nprint('debug: reading', file=sys.stderr)\nprint('x' * 20000, file=sys.stderr)\n"
         "print('0 0')\n")


def test_a_programs_output_is_kept_bounded_in_the_run_record(pool, tmp_path):
    from spade.records import OUTPUT_KEPT
    from spade.store import IterationTask, IterationWrite, RunStore

    task = program_task()
    grader = Grader(pool, RewardConfig())
    wrong, right = grader.grade([task, task], [Completion(NOISY + "```"), Completion(SUM_MAX + "```")],
                                ids=["noisy", "right"])
    assert right.result.score == 1.0 and right.result.stdout == "6 3\n"
    assert wrong.result.stdout == "0 0\n" and wrong.result.stderr.startswith("debug: reading\n")
    assert len(wrong.result.stderr.encode()) == OUTPUT_KEPT  # 20 KB written, 4 KB kept
    with RunStore(tmp_path / "run", create=True) as store:
        store.commit_iteration(IterationWrite(0, tasks=[IterationTask(task, "generated")], rollouts=[wrong, right]))
        (row,) = store.query("SELECT json FROM executions WHERE candidate_id = 'noisy'")
    kept = json.loads(row[0])
    assert kept["stdout"] == "0 0\n" and kept["stderr"].startswith("debug: reading") and kept["status"] == "failed"


def test_spade_validate_accepts_the_example_and_rejects_a_broken_program_task_with_reasons(tmp_path):
    good = json.loads(EXAMPLE.read_text())
    broken = {**good, "task_id": "broken", "reference_solution": "import sys\nprint(1 +)\n",
              "params": {"output_match": "fuzzy"}}
    path = tmp_path / "programs.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(broken) + "\n")
    out = io.StringIO()
    code = validate_command(str(path), SpadeConfig(), Console(file=out, width=300))
    text = out.getvalue()
    assert code == 1 and "1 accepted, 1 rejected of 2 tasks" in text
    assert "bad_output_match" in text and "reference_syntax_error" in text


def test_spade_validate_refuses_a_program_task_of_the_wrong_shape_in_one_line(tmp_path, capsys):
    from spade.cli import main

    path = tmp_path / "bad.json"
    path.write_text(json.dumps({**json.loads(EXAMPLE.read_text()), "entry_point": ["x"]}))
    assert main(["validate", str(path)]) != 0
    err = capsys.readouterr().err
    assert "entry_point" in err and "Traceback" not in err


def test_the_readme_shows_the_example_program_task_file():
    readme = (EXAMPLE.parents[1] / "docs" / "kinds.md").read_text()
    section = readme.split("### program\n", 1)[1].split("\n### ", 1)[0]
    block = section.split("```json\n", 1)[1].split("```", 1)[0]
    assert json.loads(block) == json.loads(EXAMPLE.read_text())


def test_spade_exec_runs_a_program_answer_on_a_program_task(tmp_path, capsys):
    from spade.cli import main

    right, wrong = tmp_path / "right.py", tmp_path / "wrong.py"
    right.write_text(SUM_MAX)
    wrong.write_text(WRONG)
    assert main(["exec", str(EXAMPLE), str(right)]) == 0
    assert main(["exec", str(EXAMPLE), str(wrong), "--json"]) == 1
    assert '"status": "wrong_answer"' in capsys.readouterr().out
