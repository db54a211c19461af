"""The controller against a synthetic policy whose skill rises, plateaus and drops (issue: co-evolution)."""

import math
import random

from spade.config import EvolutionConfig
from spade.curriculum import Controller

CFG = EvolutionConfig(coevolve_every=4, window=32, patience=2, step=0.05, initial_difficulty=0.3)


def skill_at(t: int) -> float:
    if t < 300:
        return 0.2 + 0.6 * t / 300  # rises
    if t < 500:
        return 0.8  # plateaus
    return max(0.35, 0.8 - 0.6 * (t - 500) / 200)  # drops


def success_probability(skill: float, difficulty: float) -> float:
    # Tasks at the policy's skill level are solved half the time; easier ones more often.
    return 1 / (1 + math.exp(-12 * (skill - difficulty + 0.05)))


def simulate(seed: int) -> tuple[list[float], list[float]]:
    rng = random.Random(seed)
    ctl = Controller(CFG, ["fam"])
    difficulties, skills = [], []
    for t in range(800):
        p = success_probability(skill_at(t), ctl.difficulty("fam"))
        ctl.observe("fam", [float(rng.random() < p) for _ in range(8)])
        ctl.maybe_adjust()
        difficulties.append(ctl.difficulty("fam"))
        skills.append(skill_at(t))
    return difficulties, skills


def test_difficulty_tracks_a_rising_plateauing_and_dropping_skill():
    d, _ = simulate(0)
    assert d[299] > d[0] + 0.25  # climbed with the skill
    assert abs(d[499] - max(d[300:500])) < 0.11  # held near its peak on the plateau
    assert d[-1] < d[499] - 0.2  # came back down when the skill dropped


def test_difficulty_stays_in_bounds_and_changes_direction_a_bounded_number_of_times():
    for seed in range(5):
        d, _ = simulate(seed)
        assert all(CFG.difficulty_low <= x <= CFG.difficulty_high for x in d)
        moves = [b - a for a, b in zip(d, d[1:]) if b != a]
        reversals = sum(1 for a, b in zip(moves, moves[1:]) if (a > 0) != (b > 0))
        assert reversals <= 6, (seed, reversals)


def test_success_rate_is_kept_near_the_band_while_the_skill_moves():
    rng = random.Random(1)
    ctl = Controller(CFG, ["fam"])
    wins = []
    for t in range(800):
        p = success_probability(skill_at(t), ctl.difficulty("fam"))
        wins += [float(rng.random() < p) for _ in range(8)]
        ctl.observe("fam", wins[-8:])
        ctl.maybe_adjust()
    mean = sum(wins) / len(wins)
    assert CFG.success_low - 0.1 <= mean <= CFG.success_high + 0.1
