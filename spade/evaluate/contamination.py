"""Which evaluation suites a run's training must not reproduce, and the behaviour screen over them.

In: the config and the suites a run reports and gates on. Out: the suites to check (those, eval.contamination_suites,
HumanEval, and heldout-unseen when the run withholds families) and the ContaminationScreen (spade.dedup.behaviour) that the loop, self-play and
spade.env apply to every task they hand out.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from spade.dedup.behaviour import MATCHES_NAME, BehaviourIndex, ContaminationScreen
from spade.errors import ConfigError
from spade.evaluate.suites import in_distribution, load_suite
from spade.records import Task

ALWAYS_SCREENED = ("humaneval",)
"""The foreign suites every run is screened against, whether or not it reports them, when their data is installed
(HumanEval's comes with the `eval` extra; a light install without it screens against the rest and says so once)."""

log = logging.getLogger(__name__)
_warned: set[str] = set()


def checked_suites(cfg: Any, loaded: dict[str, list[Task]]) -> dict[str, list[Task]]:
    """The suites training must not reproduce: the run's reported and gate suites (`loaded`, by name; empty ones
    dropped), cfg.eval.contamination_suites, ALWAYS_SCREENED and, when the run withholds families, heldout-unseen
    (their held-out tasks: a proposal that behaves as a withheld family is that family, whoever wrote it)."""
    suites = {name: tasks for name, tasks in loaded.items() if tasks}
    unseen = ("heldout-unseen",) if cfg.generation.withhold_families else ()
    for name in dict.fromkeys((*cfg.eval.contamination_suites, *unseen)):
        if name not in suites:
            suites[name] = load_suite(name, cfg.generation.withhold_families)
    for name in ALWAYS_SCREENED:
        if name not in suites:
            try:
                suites[name] = load_suite(name, cfg.generation.withhold_families)
            except ConfigError as exc:  # its data is not installed: a suite the user named still fails above
                if name not in _warned:
                    _warned.add(name)
                    log.warning("not screening training tasks against %s: %s", name, exc)
    return suites


def contamination_screen(run_dir: Any, suites: dict[str, list[Task]]) -> ContaminationScreen:
    """The behaviour screen over `suites`: foreign ones are reserved (a task answering one is rejected),
    in-distribution ones are filtered at evaluation; matches are kept in the run directory (MATCHES_NAME)."""
    return ContaminationScreen(BehaviourIndex(suites), [s for s in suites if not in_distribution(s)],
                               Path(run_dir) / MATCHES_NAME)
