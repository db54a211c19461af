"""The live view of `spade run`: a bar per stage and a status line per iteration (rich); when stderr is not a
terminal, periodic lines per stage instead of bars (spade.evaluate.progress).

Status line: iteration, target difficulty, mean reward, pass rate, tokens/s, executions/s.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from spade.evaluate.progress import PeriodicLines


class LoopDisplay:
    def __init__(self, iterations: int):
        self.console = Console(stderr=True)
        self.progress = Progress(
            TextColumn("[bold]{task.description:<12}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            TextColumn("{task.fields[status]}"), console=self.console, transient=False,
        )
        self.loop = self.progress.add_task("iterations", total=iterations, status="")
        self.stages: dict[str, Any] = {}
        self.lines = PeriodicLines()

    def __enter__(self) -> LoopDisplay:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def stage(self, name: str, done: int, total: int) -> None:
        if not self.console.is_terminal:  # no live bars in a log: a line now and then instead
            self.lines(name, done, total)
        if name not in self.stages:
            self.stages[name] = self.progress.add_task(name, total=max(total, 1), status="")
        self.progress.update(self.stages[name], completed=done, total=max(total, 1))

    def iteration_done(self, i: int, metrics: dict[str, float], controller: Any) -> None:
        diffs = [s.difficulty for s in controller.families.values()]
        mean_diff = sum(diffs) / len(diffs) if diffs else 0.0
        line = (
            f"it {i} | difficulty {mean_diff:.2f} | reward {metrics.get('mean_reward', 0):.3f} | "
            f"pass {metrics.get('pass_rate', 0):.2f} | {metrics.get('tokens_per_s', 0):.0f} tok/s | "
            f"{metrics.get('executions_per_s', 0):.0f} exec/s"
        )
        self.progress.update(self.loop, completed=i + 1, status=line)
        self.progress.console.print(line)
        for task_id in self.stages.values():
            self.progress.update(task_id, completed=0)

    def note(self, text: str) -> None:
        self.progress.console.print(text)
