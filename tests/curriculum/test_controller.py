import random

from hypothesis import given, settings
from hypothesis import strategies as st

from spade.config import EvolutionConfig
from spade.curriculum import Controller, choose_replay

CFG = EvolutionConfig(coevolve_every=1, window=8, patience=2, step=0.1, initial_difficulty=0.5)


def _feed(ctl, family, rate, checks):
    decisions = []
    for _ in range(checks):
        ctl.observe(family, [1.0] * int(rate * 8) + [0.0] * (8 - int(rate * 8)))
        decisions += ctl.maybe_adjust()
    return decisions


def test_difficulty_rises_only_after_patience_windows_above_the_band():
    ctl = Controller(CFG, ["a"])
    assert _feed(ctl, "a", 1.0, 1) == []  # one window above: hysteresis holds
    (d,) = _feed(ctl, "a", 1.0, 1)
    assert d.old_difficulty == 0.5 and d.new_difficulty == 0.6 and d.window_mean == 1.0


def test_difficulty_falls_below_the_band_and_holds_in_the_dead_zone():
    ctl = Controller(CFG, ["a"])
    assert _feed(ctl, "a", 0.5, 5) == []  # inside 30–80%: dead zone
    decisions = _feed(ctl, "a", 0.0, 2)
    assert decisions[-1].new_difficulty == 0.4


def test_families_move_independently():
    ctl = Controller(CFG, ["easy", "hard"])
    _feed(ctl, "easy", 1.0, 2)
    _feed(ctl, "hard", 0.5, 2)
    assert ctl.difficulty("easy") == 0.6 and ctl.difficulty("hard") == 0.5


def test_no_decision_more_often_than_coevolve_every():
    ctl = Controller(EvolutionConfig(coevolve_every=5, window=8, patience=1), ["a"])
    assert _feed(ctl, "a", 1.0, 4) == []
    assert len(_feed(ctl, "a", 1.0, 1)) == 1


def test_state_round_trips_through_json():
    ctl = Controller(CFG, ["a", "b"])
    _feed(ctl, "a", 1.0, 3)
    again = Controller.from_state(CFG, ctl.to_state())
    assert again.to_state() == ctl.to_state()


@settings(max_examples=50)
@given(rates=st.lists(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]), max_size=60))
def test_difficulty_never_leaves_its_bounds(rates):
    ctl = Controller(CFG, ["a"])
    for r in rates:
        _feed(ctl, "a", r, 1)
        assert CFG.difficulty_low <= ctl.difficulty("a") <= CFG.difficulty_high


def test_replay_prefers_forgotten_then_unsolved_tasks():
    history = {"solid": [1.0, 1.0], "forgot": [1.0, 0.0], "never": [0.0, 0.0], "shaky": [0.5]}
    chosen = choose_replay(history, 3, random.Random(0), exclude=set())
    assert chosen == ["forgot", "never", "shaky"]
    assert choose_replay(history, 5, random.Random(0), exclude={"forgot"})[0] == "never"


def _wins(rate, n=8):
    return [1.0] * round(rate * n) + [0.0] * (n - round(rate * n))


def test_replayed_rollouts_at_another_level_stay_out_of_the_window_but_are_measured():
    ctl = Controller(CFG, ["a"])
    ctl.observe("a", _wins(0.0), difficulty=0.2)  # a replayed task made at 0.2, failed
    assert ctl.window_mean("a") is None  # the window at 0.5 is untouched
    ctl.observe("a", _wins(1.0))
    assert ctl.window_mean("a") == 1.0
    assert ctl.measured_success("a") == {0.2: 0.0, 0.5: 1.0}


def test_a_move_jumps_to_the_nearest_level_measured_inside_the_band():
    ctl = Controller(CFG, ["a"])
    ctl.observe("a", _wins(0.5), difficulty=0.2)  # in band (0.3-0.8)
    ctl.observe("a", _wins(0.1), difficulty=0.4)  # measured too hard
    (d,) = _feed(ctl, "a", 0.0, 2)
    assert d.old_difficulty == 0.5 and d.new_difficulty == 0.2
    assert "measured success 0.50 at 0.2" in d.reason


def test_a_move_steps_past_levels_measured_on_the_same_wrong_side():
    ctl = Controller(CFG, ["a"])
    ctl.observe("a", _wins(0.0), difficulty=0.4)
    ctl.observe("a", _wins(0.1), difficulty=0.3)
    (d,) = _feed(ctl, "a", 0.0, 2)
    assert d.new_difficulty == 0.2  # 0.4 and 0.3 are known to be too hard too
    assert "skipped 0.4, 0.3" in d.reason


def test_unmeasured_levels_fall_back_to_one_step_and_levels_survive_a_state_round_trip():
    ctl = Controller(CFG, ["a"])
    ctl.observe("a", _wins(0.5, n=2), difficulty=0.2)  # too few rollouts to count as measured
    (d,) = _feed(ctl, "a", 0.0, 2)
    assert d.new_difficulty == 0.4
    back = Controller.from_state(CFG, ctl.to_state())
    assert back.to_state() == ctl.to_state()
    assert sorted(back.families["a"].levels) == [0.2, 0.5]


def _far(max_steps):
    return EvolutionConfig(coevolve_every=1, window=8, patience=1, step=0.05, initial_difficulty=0.5,
                           difficulty_low=0.0, max_steps=max_steps)


def test_a_window_far_below_the_band_moves_one_step_per_tenth_of_distance():
    ctl = Controller(_far(4), ["a"])
    (d,) = _feed(ctl, "a", 0.0, 1)  # 0.0 under a 0.3 floor: 3 steps
    assert d.new_difficulty == 0.35 and "3 steps" in d.reason
    (d,) = _feed(ctl, "a", 0.25, 1)  # 0.05 under: one step
    assert d.new_difficulty == 0.3


def test_a_window_far_above_the_band_moves_up_by_its_distance_too():
    ctl = Controller(_far(4), ["a"])
    (d,) = _feed(ctl, "a", 1.0, 1)  # 1.0 over a 0.8 ceiling: 2 steps
    assert d.new_difficulty == 0.6


def test_max_steps_caps_the_move_and_one_keeps_single_steps():
    assert _feed(Controller(_far(2), ["a"]), "a", 0.0, 1)[0].new_difficulty == 0.4
    assert _feed(Controller(_far(1), ["a"]), "a", 0.0, 1)[0].new_difficulty == 0.45


def test_a_multi_step_move_stops_at_the_bound():
    cfg = _far(4).model_copy(update={"initial_difficulty": 0.1})
    (d,) = _feed(Controller(cfg, ["a"]), "a", 0.0, 1)
    assert d.new_difficulty == 0.0
