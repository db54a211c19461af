"""CLI pieces: `spade exec TASK SOLUTION` and `spade sandbox check`.

in: a task file (JSON or JSONL in SPADE's task schema), a solution file, the config. out: a readable table per
test (or the full result as JSON) and an exit code: 0 when the solution passes, 1 when it does not; bad
arguments raise TaskFormatError (exit 2), a failing sandbox SandboxError (exit 3), each one line.
The solution file is judged as the loop judges a model's reply: the task's kind takes the answer from it (a math
equation chain counts by its result, fenced code is unwrapped) and screens it; `raw` runs the file's text as is.
"""

from __future__ import annotations

import json
from dataclasses import asdict, replace
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from spade.config import SpadeConfig
from spade.errors import EXIT_FAILED, EXIT_OK, TaskFormatError
from spade.records import PYTHON_FUNCTION, ExecResult, ExecStatus, Task, TestStatus

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from concurrent.futures import Future

    from spade.sandbox.pool import SandboxPool
    from spade.sandbox.program import ProgramJob, ProgramRun


def exec_command(task_path: str, solution_path: str, as_json: bool, cfg: SpadeConfig, raw: bool = False) -> int:
    from spade.sandbox.pool import SandboxPool
    from spade.taskio import load_tasks

    tasks = load_tasks(task_path)
    if len(tasks) != 1:
        raise TaskFormatError(f"{task_path} holds {len(tasks)} tasks; `spade exec` takes a file with exactly one")
    solution = Path(solution_path)
    if not solution.is_file():
        raise TaskFormatError(f"solution file {solution_path} does not exist; pass a Python file defining the entry "
                              "point")
    code = solution.read_text(encoding="utf-8", errors="replace")
    with SandboxPool(cfg.executor.model_copy(update={"workers": 1})) as pool:
        result = _run_raw(pool, tasks[0], code) if raw else _judge(pool, tasks[0], code)
    if as_json:
        print(json.dumps(_jsonable(result), indent=2))
    else:
        _print_table(tasks[0].task_id, result)
    return EXIT_OK if result.status is ExecStatus.PASSED else EXIT_FAILED


def _judge(pool: SandboxPool, task: Task, text: str) -> ExecResult:
    """As the grading path does for a reply with no prefill: the kind's extraction, its screen, its judge."""
    from spade.kinds import kind_of

    kind = kind_of(task)
    answer = kind.extract(task, text, prefilled=False)
    found = kind.screen(answer)
    result = kind.execute(_OnThisThread(pool), [(task, answer)])[0]
    return replace(result, events=result.events + tuple(f"screen:{f}" for f in found)) if found else result


class _OnThisThread:
    """The pool as a kind sees it, scoring functions on the calling thread: a signal then stops the command at
    once instead of waiting for a pool thread's candidate to finish."""

    def __init__(self, pool: SandboxPool) -> None:
        self.pool = pool

    def score_many(self, items: Sequence[tuple[Task, str]], time_limits: Sequence[Sequence[float] | None] | None = None,
                   on_done: Callable[[int], None] | None = None) -> list[ExecResult]:
        limits = list(time_limits) if time_limits is not None else [None] * len(items)
        results = []
        for i, ((task, code), limit) in enumerate(zip(items, limits, strict=True)):
            results.append(self.pool.score(task, code, limit))
            if on_done is not None:
                on_done(i)
        return results

    def submit_program(self, job: ProgramJob) -> Future[ProgramRun]:
        return self.pool.submit_program(job)

    def run_program(self, job: ProgramJob) -> ProgramRun:
        return self.pool.run_program(job)


def _run_raw(pool: SandboxPool, task: Task, text: str) -> ExecResult:
    """The file's text run as written: a function task's file as the program, another kind's stripped."""
    if task.kind == PYTHON_FUNCTION:
        return pool.score(task, text)
    from spade.kinds import kind_of

    return kind_of(task).execute(pool, [(task, text.strip())])[0]


def sandbox_check_command(cfg: SpadeConfig) -> int:
    from spade.sandbox.isolation import check_isolation

    report = check_isolation(cfg.executor)
    console = Console()
    for layer in report.layers:
        mark = "[green]✓[/green]" if layer.active else "[red]✗[/red]"
        console.print(f"{mark} {layer.name:<14} {layer.detail}")
    if not report.meets_level:
        console.print(f"[red]isolation '{report.level}' cannot be met here: missing {', '.join(report.missing)}[/red]")
        return 1
    console.print(f"isolation '{report.level}' is available")
    return 0


def _jsonable(result: ExecResult) -> dict:
    data = asdict(result)
    data["status"] = result.status.value
    data["tests"] = [dict(t, status=t["status"].value) for t in data["tests"]]
    data["score"] = result.score
    data["public_score"], data["hidden_score"] = result.public_score, result.hidden_score
    return data


def _print_table(task_id: str, result: ExecResult) -> None:
    table = Table(title=f"{task_id}: {result.status.value}  score {result.score:.2f}")
    for column in ("test", "set", "status", "got / error"):
        table.add_column(column)
    for t in result.tests:
        style = "green" if t.status is TestStatus.PASSED else "red"
        table.add_row(str(t.index), "hidden" if t.hidden else "public", f"[{style}]{t.status.value}[/{style}]",
                      t.got or t.error or "")
    console = Console()
    console.print(table)
    if result.load_error:
        console.print(f"load error: {result.load_error}")
    console.print(f"cpu {result.cpu_time_s * 1000:.1f} ms, peak memory {result.peak_memory_kb} KiB, "
                  f"wall {result.wall_time_s * 1000:.1f} ms, output {result.output_bytes} bytes, "
                  f"events: {', '.join(result.events) or 'none'}")
