"""Reward terms are a registry: a term registered here is chosen and weighted by reward.terms / reward.weights;
an unknown name is refused with the known ones listed; the default terms give the formula they always gave."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spade.config import RewardConfig, load_config
from spade.errors import ConfigError
from spade.records import ExecResult, ExecStatus, Task, TermValue, TestCase, TestOutcome, TestStatus
from spade.registry import REWARD_TERMS
from spade.reward import Outcome, RewardTerm, compute_reward, register_term


def brevity(o: Outcome, cfg: RewardConfig) -> float:
    """A test-local bonus: 0.1 for a solved answer of at most 40 characters."""
    return 0.1 if o.solved and len(o.code) <= 40 else 0.0


def verbosity(o: Outcome, cfg: RewardConfig) -> float:
    return len(o.code) / 1000


register_term(RewardTerm("test_brevity", brevity))
register_term(RewardTerm("test_verbosity", verbosity, penalty=True))

CASE = TestCase(args=(1,), expected=1)
TASK = Task("t", "d", "def f(x: int) -> int:", "f", 0.5, test_cases=(CASE,) * 2, hidden_test_cases=(CASE,) * 3,
            reference_cpu_s=0.001)


def _result(bits, *, events=(), cpu=0.001, peak_kb=1000, limit_kb=0, timeout_at=None, status=None):
    tests = []
    for i, ok in enumerate(bits):
        s = TestStatus.TIMEOUT if timeout_at == i else TestStatus.PASSED if ok else TestStatus.WRONG_ANSWER
        tests.append(TestOutcome(i, i >= 2, s))
    status = status or (ExecStatus.PASSED if all(bits) else ExecStatus.FAILED)
    return ExecResult(status, tuple(tests), cpu, peak_kb, 0.01, events=tuple(events), memory_limit_kb=limit_kb)


PASSING = _result([1] * 5)


def test_a_registered_term_chosen_by_the_config_adds_to_the_total_and_is_reported():
    cfg = RewardConfig(terms=["pass", "test_brevity"])
    r = compute_reward(TASK, "def f(x): return x", PASSING, cfg)
    assert r.extra == (TermValue("test_brevity", 0.1),)
    assert r.total == pytest.approx(1.1) and r.difficulty_bonus == 0.0  # a term left out counts and reports 0


def test_a_registered_penalty_is_subtracted_and_weighted_by_the_config():
    code = "x" * 200
    cfg = RewardConfig(terms=["pass", "test_verbosity"], weights={"test_verbosity": 2})
    r = compute_reward(TASK, code, PASSING, cfg)
    assert r.extra == (TermValue("test_verbosity", -0.4),) and r.total == pytest.approx(0.6)


def test_a_weight_scales_a_built_in_term_and_its_reported_size():
    r = compute_reward(TASK, "", _result([0] * 5, status=ExecStatus.NO_ENTRY_POINT), RewardConfig(weights={"format": 3}))
    assert r.format_penalty == pytest.approx(0.3) and r.total == pytest.approx(-0.3)


def test_an_unknown_term_is_refused_with_the_known_ones_listed():
    with pytest.raises(ConfigError) as err:
        load_config(None, {"reward.terms": ["pass", "brevity"]})
    message = str(err.value)
    assert "reward.terms" in message and "unknown reward term 'brevity'" in message
    for name in ("pass", "difficulty_bonus", "efficiency", "interference", "format", "memory", "test_brevity"):
        assert name in message
    with pytest.raises(ConfigError, match="known: .*memory"):
        REWARD_TERMS.get("brevity")


def test_a_term_registered_twice_or_listed_twice_or_weighted_without_being_listed_is_refused():
    with pytest.raises(ValueError, match="already registered"):
        register_term(RewardTerm("test_brevity", brevity))
    with pytest.raises(ConfigError, match="more than once"):
        load_config(None, {"reward.terms": ["pass", "pass"]})
    with pytest.raises(ConfigError, match="not among reward.terms"):
        load_config(None, {"reward.terms": ["pass"], "reward.weights": {"format": 2}})


def _old_formula(task, code, result, cfg):
    """The reward as one function computed it before terms were registered (kept here to pin the numbers)."""
    fmt = cfg.format_penalty if (not code.strip() or result.status in (ExecStatus.SYNTAX_ERROR,
                                                                        ExecStatus.NO_ENTRY_POINT)) else 0.0
    events = {"output_flood", "stray_output", "syscall_denied", "file_access", "process_spawn", "socket",
              "screen:shell", "screen:network", "screen:credentials", "screen:destructive_fs"}
    interference = cfg.interference_penalty if events.intersection(result.events) else 0.0
    hidden = result.hidden_score if task.hidden_test_cases else result.score
    solved = hidden == 1.0 and result.score == 1.0
    pf = hidden if cfg.partial_credit else float(solved)
    if result.timed_out:
        pf, solved = 0.0, False
    bonus = cfg.difficulty_bonus * task.difficulty if solved else 0.0
    eff = 0.0
    reference = (task.reference_cpu_s or 0.0) * max(1, len(task.all_tests))
    if pf > 0 and reference > 0 and cfg.efficiency_weight:
        ratio = result.cpu_time_s / max(reference, 1e-4)
        if ratio > cfg.efficiency_free_ratio:
            eff = cfg.efficiency_weight * min(1.0, math.log(ratio / cfg.efficiency_free_ratio) / math.log(100.0))
    limit, mem = result.memory_limit_kb, 0.0
    free = cfg.memory_free_fraction * limit
    if not (limit <= 0 or cfg.memory_weight == 0 or result.peak_memory_kb <= free or free >= limit):
        mem = cfg.memory_weight * min(1.0, (result.peak_memory_kb - free) / (limit - free))
    return round(pf + bonus - eff - interference - fmt - mem, 6), (pf, bonus, eff, interference, fmt, mem)


@given(bits=st.lists(st.booleans(), min_size=5, max_size=5), difficulty=st.floats(0, 1), cpu=st.floats(0, 100),
       event=st.sampled_from(["", "output_flood", "screen:network", "test_timeout"]), peak_kb=st.integers(0, 1 << 20),
       timeout=st.booleans(), partial=st.booleans(), code=st.sampled_from(["", "  ", "def f(x): return x"]))
def test_the_default_terms_give_exactly_the_numbers_of_the_single_formula(bits, difficulty, cpu, event, peak_kb,
                                                                        timeout, partial, code):
    task = Task("t", "d", "def f(x: int) -> int:", "f", difficulty, test_cases=(CASE,) * 2,
                hidden_test_cases=(CASE,) * 3, reference_cpu_s=0.001)
    result = _result(bits, events=[event] if event else [], cpu=cpu, peak_kb=peak_kb, limit_kb=1 << 19,
                     timeout_at=4 if timeout else None)
    cfg = RewardConfig(partial_credit=partial)
    r = compute_reward(task, code, result, cfg)
    total, parts = _old_formula(task, code, result, cfg)
    assert r.total == total and r.extra == ()
    assert (r.pass_fraction, r.difficulty_bonus, r.efficiency_penalty, r.interference_penalty, r.format_penalty,
            r.memory_penalty) == parts

