"""The task mix self-play steers: the proposer's share of fresh tasks and each code-reasoning mode's weight,
following measured learnability within configured bounds.

In: learnability per task (1 - solve rate inside (0, 1), else 0) observed under a key: `source:<name>` (proposer,
procedural, league) and `mode:<mode>`. Out: `steer`, the new proposer share and mode weights. Rule: once each of
the compared keys has MIN_OBSERVED values in its window (the last WINDOW), the proposer's share is
  clamp(L_proposer / (L_proposer + L_procedural), min_share, max_share)
and each configured mode's weight is its share of the modes' summed learnability, clamped to [min_share,
max_share] and renormalised; with nothing to learn anywhere (all means 0) the mix stays as it was. Modes the
config weights 0 stay 0. A pure function of the state and the config.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from spade.config import SelfplayConfig

WINDOW = 64
MIN_OBSERVED = 4


@dataclass
class MixState:
    proposer_share: float
    mode_weights: dict[str, float]
    learn: dict[str, list[float]] = field(default_factory=dict)

    @classmethod
    def start(cls, cfg: SelfplayConfig) -> MixState:
        total = sum(cfg.modes.values())
        return cls(cfg.proposer_share, {m: w / total for m, w in sorted(cfg.modes.items())})

    def observe(self, key: str, value: float) -> None:
        window = self.learn.setdefault(key, [])
        window.append(float(value))
        del window[:-WINDOW]

    def mean(self, key: str) -> float | None:
        values = self.learn.get(key, [])
        return sum(values) / len(values) if len(values) >= MIN_OBSERVED else None

    def to_dict(self) -> dict:
        return {"proposer_share": self.proposer_share, "mode_weights": self.mode_weights, "learn": self.learn}

    @classmethod
    def from_dict(cls, data: dict, cfg: SelfplayConfig) -> MixState:
        start = cls.start(cfg)
        return cls(float(data.get("proposer_share", start.proposer_share)),
                   {str(k): float(v) for k, v in (data.get("mode_weights") or start.mode_weights).items()},
                   {str(k): [float(x) for x in v] for k, v in (data.get("learn") or {}).items()})


def clamp(x: float, low: float, high: float) -> float:
    return min(max(x, low), high)


def steer(mix: MixState, cfg: SelfplayConfig) -> MixState:
    """The mix after the latest observations (see the module's rule); `mix` itself is left unchanged."""
    share = mix.proposer_share
    lp, lq = mix.mean("source:proposer"), mix.mean("source:procedural")
    if lp is not None and lq is not None and lp + lq > 0:
        share = clamp(lp / (lp + lq), cfg.min_share, cfg.max_share)
    weights = dict(mix.mode_weights)
    live = sorted(m for m, w in cfg.modes.items() if w > 0)
    means = {m: mix.mean(f"mode:{m}") for m in live}
    if len(live) > 1 and all(v is not None for v in means.values()) and sum(means.values()) > 0:  # type: ignore[arg-type]
        total = sum(means.values())  # type: ignore[arg-type]
        raw = {m: clamp(means[m] / total, cfg.min_share, cfg.max_share) for m in live}  # type: ignore[operator]
        norm = sum(raw.values())
        weights = {m: (raw[m] / norm if m in raw else 0.0) for m in sorted(cfg.modes)}
    return MixState(share, weights, {k: list(v) for k, v in mix.learn.items()})
