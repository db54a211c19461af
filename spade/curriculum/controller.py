"""The co-evolution controller: keeps each family's success rate inside the learning band
(docs/method.md#co-evolution-and-the-controller).

In: per-rollout success (0/1) tagged with family. Out: `Decision`s that move a family's target difficulty by
one step (or up to `max_steps`: one per 0.1 of success the window lies outside the band), only after the window
mean stays outside the band for `patience` consecutive checks (dead zone + hysteresis), bounded by
[difficulty_low, difficulty_high]. Checks happen every `coevolve_every` steps and only
at iteration ends, i.e. never more often than the policy is updated (docs/method.md#update-frequency). State
round-trips through JSON.

Measured difficulty: every rollout is also filed under its task's claimed difficulty level (replayed tasks keep
the level they were made at, so they never bias the window at the current level). Once a level holds enough
recent rollouts its success rate is known, and a move goes to the nearest level ahead measured inside the band,
or steps past levels measured on the wrong side of it, instead of trusting the claimed scale one step at a time.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from spade.config import EvolutionConfig
from spade.records import Decision


@dataclass
class FamilyState:
    difficulty: float
    window: deque[float]
    streak: int = 0  # >0: consecutive checks above the band, <0: below
    history: list[float] = field(default_factory=list)
    levels: dict[float, deque[float]] = field(default_factory=dict)  # claimed difficulty -> recent successes


def _level(difficulty: float) -> float:
    """A claimed difficulty as a level key, at the generator's precision (drafts round to 4 decimals)."""
    return round(difficulty, 4)


class Controller:
    """Per-family target difficulty driven by a sliding window of successes."""

    def __init__(self, cfg: EvolutionConfig, families: list[str]):
        self.cfg = cfg
        self.steps = 0
        self.steps_at_last_check = 0
        self.families = {f: self._fresh(cfg.initial_difficulty) for f in families}

    def _fresh(self, difficulty: float) -> FamilyState:
        return FamilyState(difficulty, deque(maxlen=self.cfg.window), history=[difficulty])

    def difficulty(self, family: str) -> float:
        return self.families[family].difficulty

    def window_mean(self, family: str) -> float | None:
        w = self.families[family].window
        return sum(w) / len(w) if w else None

    @property
    def min_level_rollouts(self) -> int:
        """Rollouts a level needs before its measured success rate steers a move."""
        return max(4, self.cfg.window // 4)

    def measured_success(self, family: str) -> dict[float, float]:
        """Success rate per claimed difficulty level, for levels with enough recent rollouts."""
        levels = self.families[family].levels
        return {lvl: sum(w) / len(w) for lvl, w in sorted(levels.items()) if len(w) >= self.min_level_rollouts}

    def observe(self, family: str, successes: list[float], difficulty: float | None = None) -> None:
        """Record one task's rollouts (one step). `difficulty` is the task's claimed level (default: the family's
        current one); only rollouts at the current level enter the window."""
        if family not in self.families:
            self.families[family] = self._fresh(self.cfg.initial_difficulty)
        st = self.families[family]
        level = _level(st.difficulty if difficulty is None else difficulty)
        st.levels.setdefault(level, deque(maxlen=self.cfg.window)).extend(successes)
        if level == _level(st.difficulty):
            st.window.extend(successes)
        self.steps += 1

    def maybe_adjust(self) -> list[Decision]:
        """Called once per iteration, after the update. Decides when `coevolve_every` steps have passed."""
        if self.steps - self.steps_at_last_check < self.cfg.coevolve_every:
            return []
        self.steps_at_last_check = self.steps
        return [d for name in sorted(self.families) if (d := self._decide(name)) is not None]

    def _decide(self, name: str) -> Decision | None:
        st = self.families[name]
        mean = self.window_mean(name)
        if mean is None:
            return None
        cfg = self.cfg
        if mean > cfg.success_high:
            st.streak = st.streak + 1 if st.streak > 0 else 1
        elif mean < cfg.success_low:
            st.streak = st.streak - 1 if st.streak < 0 else -1
        else:
            st.streak = 0
            return None
        if abs(st.streak) < cfg.patience:
            return None
        old = st.difficulty
        direction = 1 if st.streak > 0 else -1
        new, why = self._target(name, old, direction)
        reason = (
            f"success {mean:.2f} {'>' if direction > 0 else '<'} "
            f"{cfg.success_high if direction > 0 else cfg.success_low} for {abs(st.streak)} checks{why}"
        )
        if new == old:
            reason += f"; held at bound {old}"
        decision = Decision(self.steps, name, old, new, mean, len(st.window), st.streak, reason)
        if new != old:
            st.difficulty = new
            st.window.clear()  # statistics at the old difficulty say nothing about the new one
            st.history.append(new)
        st.streak = 0
        return decision

    def _target(self, name: str, old: float, direction: int) -> tuple[float, str]:
        """Where a move goes: the nearest level ahead measured inside the band; else one step, skipping levels
        measured on the same wrong side of the band as the current one."""
        cfg = self.cfg
        measured = self.measured_success(name)
        ahead = sorted((lvl for lvl in measured if (lvl - old) * direction > 1e-9
                        and cfg.difficulty_low <= lvl <= cfg.difficulty_high), key=lambda lvl: abs(lvl - old))
        for lvl in ahead:
            if cfg.success_low <= measured[lvl] <= cfg.success_high:
                return lvl, f"; measured success {measured[lvl]:.2f} at {lvl}"
        new, skipped, steps = old, [], self.steps_for(name)
        while True:
            new = min(cfg.difficulty_high, max(cfg.difficulty_low, round(new + direction * cfg.step, 6)))
            steps -= 1
            if new in (cfg.difficulty_low, cfg.difficulty_high):
                break
            rate = measured.get(_level(new))
            still_wrong = rate is not None and (rate > cfg.success_high if direction > 0 else rate < cfg.success_low)
            if steps <= 0 and not still_wrong:
                break
            if still_wrong:
                skipped.append(new)
        why = f"; skipped {', '.join(map(str, skipped))} (measured outside the band)" if skipped else ""
        if abs(new - old) > cfg.step + 1e-9 and not skipped:
            why += f"; {round(abs(new - old) / cfg.step)} steps (success far outside the band)"
        return new, why

    def steps_for(self, name: str) -> int:
        """Steps the next move of `name` may take: one per 0.1 of success its window mean lies outside the band
        (rounded up), at least 1, at most `max_steps`."""
        mean, cfg = self.window_mean(name), self.cfg
        if mean is None or cfg.max_steps == 1:
            return 1
        distance = max(cfg.success_low - mean, mean - cfg.success_high, 0.0)
        return max(1, min(cfg.max_steps, math.ceil(round(distance / 0.1, 6))))

    def family_weights(self) -> dict[str, float]:
        """Sampling weight per family: families inside the band (or not yet measured) are favoured 2:1."""
        weights = {}
        for name in self.families:
            mean = self.window_mean(name)
            in_band = mean is None or self.cfg.success_low <= mean <= self.cfg.success_high
            weights[name] = 2.0 if in_band else 1.0
        return weights

    def to_state(self) -> dict[str, Any]:
        return {
            "steps": self.steps,
            "steps_at_last_check": self.steps_at_last_check,
            "families": {
                n: {"difficulty": s.difficulty, "window": list(s.window), "streak": s.streak, "history": s.history,
                    "levels": [[lvl, list(w)] for lvl, w in sorted(s.levels.items())]}
                for n, s in self.families.items()
            },
        }

    @classmethod
    def from_state(cls, cfg: EvolutionConfig, state: dict[str, Any]) -> Controller:
        ctl = cls(cfg, [])
        ctl.steps = state["steps"]
        ctl.steps_at_last_check = state["steps_at_last_check"]
        for name, s in state["families"].items():
            levels = {float(lvl): deque(w, maxlen=cfg.window) for lvl, w in s.get("levels", [])}
            ctl.families[name] = FamilyState(
                s["difficulty"], deque(s["window"], maxlen=cfg.window), s["streak"], list(s["history"]), levels
            )
        return ctl
