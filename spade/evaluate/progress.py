"""Progress of a long stage where a person can see it: rich bars on a terminal, periodic lines on stderr otherwise.

In: (stage, done, total) calls, as the loop's stages and `evaluate` make them. Out: on a terminal, one bar per
stage (rich); when stderr is not a terminal (a log file, nohup, CI), one line per stage when it starts, at most
every `every_s` seconds while it runs, and when it ends, e.g. `eval builtin: sample 24/72 (0:01:10)`.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

Progress = Callable[[str, int, int], None]  # (stage, done, total)
EVERY_S = 10.0


class PeriodicLines:
    """A Progress that prints a line per stage on start, every `every_s` seconds and on completion."""

    def __init__(self, stream: TextIO | None = None, every_s: float = EVERY_S, prefix: str = "",
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream
        self.every_s = every_s
        self.prefix = prefix
        self.clock = clock
        self._started: dict[str, float] = {}
        self._printed: dict[str, float] = {}
        self._ended: dict[str, float] = {}
        self._done: dict[str, int] = {}

    def __call__(self, stage: str, done: int, total: int) -> None:
        now, finished = self.clock(), done >= total
        # A pass ends when it reaches its total; one that ended short (a supply that accepted fewer tasks than it
        # wanted) ends when the count goes back down: the stage runs again, a new pass with a new clock.
        again = stage in self._ended or done < self._done.get(stage, 0)
        self._done[stage] = done
        if again:
            if finished and stage in self._ended:
                return  # the end of this pass was said already
            self._ended.pop(stage, None)
            self._started.pop(stage, None)
            self._printed.pop(stage, None)
        started = self._started.setdefault(stage, now)
        last = self._printed.get(stage)
        if last is not None and not finished and now - last < self.every_s:
            return
        self._printed[stage] = now
        if finished:
            self._ended[stage] = now
        elapsed = int(now - started)
        line = f"{self.prefix}{stage} {done}/{total} ({elapsed // 3600}:{elapsed // 60 % 60:02d}:{elapsed % 60:02d})"
        print(line, file=self.stream or sys.stderr, flush=True)


class EvalProgress:
    """`spade eval`'s progress: a context manager whose instance is a Progress (bars on a terminal, else lines)."""

    def __init__(self, label: str) -> None:
        from rich.console import Console

        self.label = label
        self.console = Console(stderr=True)
        self._bars: Any = None
        self._ids: dict[str, Any] = {}
        self._lines = PeriodicLines(prefix=f"{label}: ")

    def __enter__(self) -> EvalProgress:
        if self.console.is_terminal:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            self._bars = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                                  TimeElapsedColumn(), console=self.console, transient=True)
            self._bars.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bars is not None:
            self._bars.stop()

    def __call__(self, stage: str, done: int, total: int) -> None:
        if self._bars is None:
            self._lines(stage, done, total)
            return
        if stage not in self._ids:
            self._ids[stage] = self._bars.add_task(f"{self.label} {stage}", total=max(total, 1))
        self._bars.update(self._ids[stage], completed=done, total=max(total, 1))
