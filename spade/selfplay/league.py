"""The league: tasks proposed by saved checkpoints (earlier weights) that the current solver fails come back.

Rule (documented in docs/selfplay.md): the league is consulted in iteration i when collapse's response is active,
or when selfplay.league_every > 0 and i is a positive multiple of it. When consulted, it supplies up to
round(tasks_per_iteration * league_share) tasks: valid proposals made by weights other than the current ones,
newest first, whose last recorded pass rate is below FAILING (the solver fails them now); tasks already in the
iteration are skipped. Pure functions of their arguments.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from spade.config import SelfplayConfig

FAILING = 0.5


def league_due(iteration: int, cfg: SelfplayConfig, collapse_active: bool) -> bool:
    """Whether iteration `iteration` consults the league."""
    return collapse_active or (cfg.league_every > 0 and iteration > 0 and iteration % cfg.league_every == 0)


def choose_league(candidates: Sequence[tuple[str, str | None]], history: Mapping[str, Sequence[float]], count: int,
                  exclude: set[str]) -> list[str]:
    """Up to `count` task ids from `candidates` ((task_id, checkpoint), newest first) that the solver now fails."""
    chosen: list[str] = []
    for task_id, _ in candidates:
        if len(chosen) >= count:
            break
        rates = history.get(task_id)
        if task_id in exclude or task_id in chosen or not rates or rates[-1] >= FAILING:
            continue
        chosen.append(task_id)
    return chosen
