"""The task mix self-play steers: the proposer's share of fresh tasks, each code-reasoning mode's weight and each
task kind's weight in the procedural supply, following measured learnability within configured bounds.

In: learnability per task (1 - solve rate inside (0, 1), else 0) observed under a key: `source:<name>` (proposer,
procedural, league), `mode:<mode>` and `kind:<kind>` (procedural tasks). Out: `steer`, the new proposer share,
mode weights and kind weights. Rule: once each of the compared keys has MIN_OBSERVED values in its window (the
last WINDOW), the proposer's share is
  clamp(L_proposer / (L_proposer + L_procedural), min_share, max_share)
and each configured mode's weight is its share of the modes' summed learnability, clamped to [min_share,
max_share] and renormalised; kinds likewise among the kinds generation.kinds weights above 0 (until then, and
with one kind, the configured weights hold). With nothing to learn anywhere (all means 0) the mix stays as it
was. Modes and kinds the config weights 0 stay 0. A pure function of the state and the config.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from spade.config import SelfplayConfig
from spade.kinds.code_reasoning.prompt import mode_of
from spade.records import Task
from spade.reward import learnability

WINDOW = 64
MIN_OBSERVED = 4


@dataclass
class MixState:
    proposer_share: float
    mode_weights: dict[str, float]
    learn: dict[str, list[float]] = field(default_factory=dict)
    kind_weights: dict[str, float] = field(default_factory=dict)  # empty: generation.kinds as configured

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
        return {"proposer_share": self.proposer_share, "mode_weights": self.mode_weights, "learn": self.learn,
                "kind_weights": self.kind_weights}

    @classmethod
    def from_dict(cls, data: dict, cfg: SelfplayConfig) -> MixState:
        start = cls.start(cfg)
        return cls(float(data.get("proposer_share", start.proposer_share)),
                   {str(k): float(v) for k, v in (data.get("mode_weights") or start.mode_weights).items()},
                   {str(k): [float(x) for x in v] for k, v in (data.get("learn") or {}).items()},
                   {str(k): float(v) for k, v in (data.get("kind_weights") or {}).items()})

    def observe_task(self, source: str, task: Task, rate: float) -> None:
        """A task's learnability at solve rate `rate` under its source, its kind (procedural tasks: the kinds the
        mix steers are the procedural supply's) and its mode (code-reasoning tasks)."""
        learn = learnability(rate)
        self.observe(f"source:{source}", learn)
        if source == "procedural":
            self.observe(f"kind:{task.kind}", learn)
        if task.kind == "code_reasoning":
            self.observe(f"mode:{mode_of(task)}", learn)

    def kinds(self, configured: Mapping[str, float]) -> dict[str, float]:
        """generation.kinds as this mix weights it: the steered weights of the kinds configured above 0."""
        return {k: (self.kind_weights.get(k, w) if w > 0 else w) for k, w in configured.items()}


def clamp(x: float, low: float, high: float) -> float:
    return min(max(x, low), high)


def steer(mix: MixState, cfg: SelfplayConfig, kinds: Mapping[str, float] | None = None) -> MixState:
    """The mix after the latest observations (see the module's rule); `mix` itself is left unchanged. `kinds`:
    generation.kinds (None: kinds are not steered)."""
    share = mix.proposer_share
    lp, lq = mix.mean("source:proposer"), mix.mean("source:procedural")
    if lp is not None and lq is not None and lp + lq > 0:
        share = clamp(lp / (lp + lq), cfg.min_share, cfg.max_share)
    modes = _shares(mix, "mode", cfg.modes, cfg)
    weights = modes if modes is not None else dict(mix.mode_weights)
    kind_weights = dict(mix.kind_weights)
    if kinds is not None:
        steered = _shares(mix, "kind", kinds, cfg)
        if steered is not None:
            kind_weights = {k: w for k, w in steered.items() if kinds[k] > 0}
    return MixState(share, weights, {k: list(v) for k, v in mix.learn.items()}, kind_weights)


def _shares(mix: MixState, prefix: str, configured: Mapping[str, float], cfg: SelfplayConfig
            ) -> dict[str, float] | None:
    """Each name configured above 0, weighted by its share of the summed learnability, clamped to [min_share,
    max_share] and renormalised (names configured 0 keep 0); None while any lacks observations, with fewer than
    two names, or with nothing to learn anywhere."""
    live = sorted(m for m, w in configured.items() if w > 0)
    means = {m: mix.mean(f"{prefix}:{m}") for m in live}
    known = {m: v for m, v in means.items() if v is not None}
    if len(live) < 2 or len(known) < len(live) or sum(known.values()) <= 0:
        return None
    total = sum(known.values())
    raw = {m: clamp(known[m] / total, cfg.min_share, cfg.max_share) for m in live}
    norm = sum(raw.values())
    return {m: (raw[m] / norm if m in raw else 0.0) for m in sorted(configured)}
