"""Which evaluation suites a run's training must not reproduce, and the behaviour screen over them.

In: the config and the suites a run reports and gates on. Out: the suites to check (those plus
eval.contamination_suites) and the ContaminationScreen (spade.dedup.behaviour) that the loop, self-play and
spade.env apply to every task they hand out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from spade.dedup.behaviour import MATCHES_NAME, BehaviourIndex, ContaminationScreen
from spade.evaluate.suites import in_distribution, load_suite
from spade.records import Task


def checked_suites(cfg: Any, loaded: dict[str, list[Task]]) -> dict[str, list[Task]]:
    """The suites training must not reproduce: the run's reported and gate suites (`loaded`, by name; empty ones
    dropped) and cfg.eval.contamination_suites."""
    suites = {name: tasks for name, tasks in loaded.items() if tasks}
    for name in cfg.eval.contamination_suites:
        if name not in suites:
            suites[name] = load_suite(name, cfg.generation.withhold_families)
    return suites


def contamination_screen(run_dir: Any, suites: dict[str, list[Task]]) -> ContaminationScreen:
    """The behaviour screen over `suites`: foreign ones are reserved (a task answering one is rejected),
    in-distribution ones are filtered at evaluation; matches are kept in the run directory (MATCHES_NAME)."""
    return ContaminationScreen(BehaviourIndex(suites), [s for s in suites if not in_distribution(s)],
                               Path(run_dir) / MATCHES_NAME)
