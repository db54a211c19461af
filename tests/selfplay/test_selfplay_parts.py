"""Self-play's pure parts: parsing a proposal (bounded), its reward, the mix rule, the league rule and the
diversity measure behind the collapse response."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from spade.config import SelfplayConfig, SpadeConfig, load_config
from spade.errors import ConfigError
from spade.selfplay.diversity import diversity
from spade.selfplay.league import choose_league, league_due
from spade.selfplay.mix import MIN_OBSERVED, MixState, steer
from spade.selfplay.prompts import proposer_prompts
from spade.selfplay.proposal import MAX_INPUTS, MAX_PROPOSAL_CHARS, draft_of, parse_proposal
from spade.selfplay.reward import proposal_reward, proposer_batch

ROOT = Path(__file__).resolve().parents[2]
CFG = SelfplayConfig(modes={"deduction": 1.0, "abduction": 1.0, "induction": 1.0})


def test_a_proposal_is_the_function_and_the_literal_calls_outside_it():
    text = ("x):\n    \"\"\"Double the odd ones.\"\"\"\n    return [v * 2 for v in x if v % 2]\n\n"
            "print(f([1, 2, 3]))\nprint(f([]), f([5]))\nprint(f(open('/etc/passwd')))\nprint(f([1, 2, 3]))\n```\nmore")
    parsed = parse_proposal(text)
    assert not isinstance(parsed, str)
    assert parsed.program.startswith("def f(x):") and "print" not in parsed.program
    assert parsed.inputs == (([1, 2, 3],), ([],), ([5],))  # the non-literal call is skipped, the repeat kept once
    assert parsed.description == "Double the odd ones."
    draft = draft_of(parsed, "induction", 0.3, iteration=2, index=0, checkpoint="checkpoints/step-1", model="m")
    assert draft.kind == "code_reasoning" and draft.params == {"mode": "induction"}
    assert draft.provenance["checkpoint"] == "checkpoints/step-1" and draft.public_inputs and draft.hidden_inputs


@pytest.mark.parametrize("text, reason", [
    ("x):\n    return x +\n", "no_function"),  # cut mid-expression: the parseable prefix has no function
    ("x):\n    return x\n```", "no_inputs"),
    ("x):\n    return x\nprint(g(3))\n", "no_inputs"),
    ("x):\n    return x\nprint(f(y=3))\n", "no_inputs"),
    ("x):\n    return x\nprint(f(1, 2))\nprint(f())\n", "arity_mismatch"),  # calls, none f can take
])
def test_a_proposal_without_a_function_or_literal_inputs_is_a_reason(text, reason):
    assert parse_proposal(text) == reason


def test_calls_with_an_argument_count_f_cannot_take_are_left_out():
    """A proposer's `print(f('abc', 4))` beside `print(f('hi'))` for f(s): the whole proposal was refused as
    arity_mismatch; now the calls f can take make the task."""
    parsed = parse_proposal("s, n=2):\n    return s * n\n\nprint(f('abc', 4))\nprint(f('hi'))\nprint(f())\n"
                            "print(f('a', 1, 2))\n```")
    assert not isinstance(parsed, str) and parsed.inputs == (("abc", 4), ("hi",))
    star = parse_proposal("*xs):\n    return len(xs)\n\nprint(f())\nprint(f(1, 2, 3))\n```")
    assert not isinstance(star, str) and star.inputs == ((), (1, 2, 3))


def test_a_proposal_is_bounded_before_it_is_parsed():
    flood = "x):\n    return x\n" + "print(f(1))\n" * 5000 + "(" * 100_000
    parsed = parse_proposal(flood)
    assert not isinstance(parsed, str) and len(parsed.inputs) == 1
    many = "x):\n    return x\n" + "".join(f"print(f({k}))\n" for k in range(50))
    assert len(parse_proposal(many).inputs) == MAX_INPUTS
    assert parse_proposal("(" * (2 * MAX_PROPOSAL_CHARS)) == "no_function"  # no whole line of it parses


def test_reward_is_learnability_less_the_penalties():
    assert proposal_reward(CFG, valid=True, solve_rate=0.25, similarity=0.0, duplicate=False) == (0.75, 0.75)
    assert proposal_reward(CFG, valid=True, solve_rate=1.0, similarity=0.0, duplicate=False) == (0.0, 0.0)
    assert proposal_reward(CFG, valid=True, solve_rate=0.0, similarity=0.0, duplicate=False) == (0.0, 0.0)
    learn, reward = proposal_reward(CFG, valid=True, solve_rate=None, similarity=0.9, duplicate=True)
    assert learn == 0.0 and reward == pytest.approx(-0.45)
    assert proposal_reward(CFG, valid=False, solve_rate=None, similarity=0.0, duplicate=False) == (0.0, -0.5)


def test_the_proposer_learns_from_enough_distinct_rewarded_proposals_or_waits():
    ten = "x):\n    result = 10 ** x\n    return str(result)\n\nprint(f(3))"
    rows = [("p", ten, 0.9), ("p", ten + "  ", 0.5), ("p", "x):\n    return x[::-1]\n\nprint(f('ab'))", 0.7),
            ("p", "x):\n    return len(x)\n\nprint(f('abc'))", -0.5)]
    cfg = CFG.model_copy(update={"proposer_min_examples": 3})
    batch, wait = proposer_batch(cfg, rows)  # the repeat counts once, the unrewarded one not at all
    assert [r[2] for r in batch] == [0.9, 0.7] and wait is not None and "2 distinct" in wait
    assert proposer_batch(CFG.model_copy(update={"proposer_min_examples": 2}), rows) == (batch, None)
    assert proposer_batch(cfg, rows[3:]) == ([], None)  # nothing rewarded: skipped, not waiting
    many = [("p", f"x):\n    return x * {k} + {k * k} - {k ** 3}\n\nprint(f({k}))", k / 10) for k in range(9)]
    capped = CFG.model_copy(update={"proposer_examples": 4, "proposer_min_examples": 4})
    assert [r[2] for r in proposer_batch(capped, many)[0]] == [0.8, 0.7, 0.6, 0.5]


def test_the_mix_follows_learnability_within_bounds():
    mix = MixState.start(CFG)
    assert steer(mix, CFG).proposer_share == CFG.proposer_share  # too few observations: unchanged
    for _ in range(MIN_OBSERVED):
        mix.observe("source:proposer", 0.6)
        mix.observe("source:procedural", 0.0)
        mix.observe("mode:deduction", 0.5)
        mix.observe("mode:abduction", 0.5)
        mix.observe("mode:induction", 0.0)
    after = steer(mix, CFG)
    assert after.proposer_share == CFG.max_share  # all learnability is the proposer's, capped at max_share
    assert after.mode_weights["induction"] > 0  # floored at min_share, then renormalised
    assert after.mode_weights["deduction"] == after.mode_weights["abduction"] > after.mode_weights["induction"]
    assert sum(after.mode_weights.values()) == pytest.approx(1.0)
    flat = MixState.start(CFG)
    for _ in range(MIN_OBSERVED):
        flat.observe("source:proposer", 0.0)
        flat.observe("source:procedural", 0.0)
    assert steer(flat, CFG).proposer_share == CFG.proposer_share  # nothing to learn anywhere: unchanged


def test_the_procedural_kinds_follow_learnability_within_bounds():
    """The mix steered sources and modes only; generation.kinds kept its configured weights whatever the solver
    learned from each kind."""
    kinds = {"python_function": 1.0, "code_reasoning": 1.0, "sql": 0.0}
    mix = MixState.start(CFG)
    assert steer(mix, CFG, kinds).kinds(kinds) == kinds  # nothing observed: as configured
    for _ in range(MIN_OBSERVED):
        mix.observe("kind:python_function", 0.6)
        mix.observe("kind:code_reasoning", 0.0)
        mix.observe("kind:sql", 0.9)  # weighted 0 in the config: stays 0 whatever it shows
    after = steer(mix, CFG, kinds)
    weights = after.kinds(kinds)
    assert weights["sql"] == 0.0 and weights["python_function"] > weights["code_reasoning"] > 0  # floored at min_share
    assert weights["python_function"] + weights["code_reasoning"] == pytest.approx(1.0)
    assert MixState.from_dict(after.to_dict(), CFG).kinds(kinds) == weights  # and a resume keeps them
    assert steer(mix, CFG).kind_weights == {}  # kinds not given: not steered


def test_the_league_is_consulted_every_league_every_iterations_or_while_collapse_lasts():
    cfg = SelfplayConfig(league_every=3)
    assert [i for i in range(10) if league_due(i, cfg, False)] == [3, 6, 9]
    assert league_due(1, cfg, True)
    assert not any(league_due(i, SelfplayConfig(league_every=0), False) for i in range(10))


def test_the_league_brings_back_past_proposals_the_solver_fails_newest_first():
    candidates = [("t5", "checkpoints/step-3"), ("t4", None), ("t3", "checkpoints/step-1"), ("t2", None), ("t1", None)]
    history = {"t5": [0.0], "t4": [1.0, 0.0], "t3": [0.0, 1.0], "t1": [0.25]}
    assert choose_league(candidates, history, 2, exclude=set()) == ["t5", "t4"]
    assert choose_league(candidates, history, 5, exclude={"t5"}) == ["t4", "t1"]  # t3 solved now, t2 never tried


def test_diversity_counts_distinct_and_near_duplicate_samples():
    same = diversity({"a": ["return x", "return  x", "return x"], "b": ["1"]})
    assert same.distinct == pytest.approx(1 / 3) and same.near_duplicate_rate == 1.0 and same.tasks == 1
    varied = diversity({"a": ["return x + 1", "return sorted(x)"], "b": ["7", "8"]})
    assert varied.distinct == 1.0 and varied.near_duplicate_rate == 0.0


def test_selfplay_is_on_by_default_with_the_measured_recipe_and_validated():
    cfg = SpadeConfig()
    assert cfg.selfplay.enabled is True and cfg.selfplay.proposals_per_slot == 3
    assert [m for m, w in cfg.selfplay.modes.items() if w > 0] == ["induction"]
    assert cfg.generation.kinds == {"python_function": 1.0, "code_reasoning": 1.0}
    assert load_config(ROOT / "configs" / "selfplay.yaml") == cfg  # the file spells the defaults out
    with pytest.raises(ValueError, match="unknown mode 'guessing'"):
        SelfplayConfig(modes={"guessing": 1.0})
    with pytest.raises(ValueError, match="min_share"):
        SelfplayConfig(min_share=0.9, max_share=0.5)


def test_selfplay_with_the_llm_proposer_is_refused_in_one_line():
    from spade.config import load_config

    with pytest.raises(ConfigError, match="generation.proposer to 'procedural'"):
        load_config(None, {"selfplay.enabled": True, "generation.proposer": "llm"})


def test_the_mix_survives_a_resume():
    mix = MixState.start(CFG)
    for _ in range(70):
        mix.observe("source:proposer", 0.5)
    back = MixState.from_dict(mix.to_dict(), CFG)
    assert back == mix and len(back.learn["source:proposer"]) == 64  # the window keeps the last WINDOW values


@pytest.mark.parametrize("share, expected", [(0.0, {"def f(a): recent"}), (1.0, {"def f(b): learnable"})])
def test_a_share_of_proposer_prompts_shows_a_learnable_proposal(share, expected):
    shown = {t.params["examples"][0] for t in proposer_prompts(
        [f"p{k}" for k in range(20)], random.Random(0), {"induction": 1.0}, lambda mode: 0.3,
        ["def f(a): recent"], learnable=["def f(b): learnable"], learnable_share=share)}
    assert shown == expected


def test_half_the_proposer_prompts_show_a_learnable_proposal_and_none_when_the_run_has_none():
    kwargs = {"ids": [f"p{k}" for k in range(400)], "mode_weights": {"induction": 1.0}, "level_of": lambda m: 0.3,
              "examples": ["def f(a): recent"]}
    half = [t.params["examples"][0] for t in proposer_prompts(rng=random.Random(1), learnable=["def f(b): l"],
                                                              learnable_share=0.5, **kwargs)]
    assert 150 < half.count("def f(b): l") < 250
    none = [t.params["examples"][0] for t in proposer_prompts(rng=random.Random(1), learnable=[],
                                                              learnable_share=0.5, **kwargs)]
    assert set(none) == {"def f(a): recent"}
