"""The co-evolution controller: keeps each family's success rate inside the learning band (write-up §3.6, §6.2).

In: per-rollout success (0/1) tagged with family. Out: `Decision`s that move a family's target difficulty by
one step, only after the window mean stays outside the band for `patience` consecutive checks (dead zone +
hysteresis), bounded by [difficulty_low, difficulty_high]. Checks happen every `coevolve_every` steps and only
at iteration ends, i.e. never more often than the policy is updated (§5.4). State round-trips through JSON.
"""

from __future__ import annotations

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

    def observe(self, family: str, successes: list[float]) -> None:
        """Record one task's rollouts (one step) at the family's current difficulty."""
        if family not in self.families:
            self.families[family] = self._fresh(self.cfg.initial_difficulty)
        self.families[family].window.extend(successes)
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
        new = min(cfg.difficulty_high, max(cfg.difficulty_low, round(old + direction * cfg.step, 6)))
        reason = (
            f"success {mean:.2f} {'>' if direction > 0 else '<'} "
            f"{cfg.success_high if direction > 0 else cfg.success_low} for {abs(st.streak)} checks"
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
                n: {"difficulty": s.difficulty, "window": list(s.window), "streak": s.streak, "history": s.history}
                for n, s in self.families.items()
            },
        }

    @classmethod
    def from_state(cls, cfg: EvolutionConfig, state: dict[str, Any]) -> Controller:
        ctl = cls(cfg, [])
        ctl.steps = state["steps"]
        ctl.steps_at_last_check = state["steps_at_last_check"]
        for name, s in state["families"].items():
            ctl.families[name] = FamilyState(
                s["difficulty"], deque(s["window"], maxlen=cfg.window), s["streak"], list(s["history"])
            )
        return ctl
