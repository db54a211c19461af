import pytest
from hypothesis import given
from hypothesis import strategies as st

from spade.config import RewardConfig
from spade.records import ExecResult, ExecStatus, Task, TestCase, TestOutcome, TestStatus
from spade.reward import compute_reward

CFG = RewardConfig()


def _task(difficulty=0.5, n_public=2, n_hidden=3, ref_cpu=0.001):
    case = TestCase(args=(1,), expected=1)
    return Task("t", "d", "def f(x: int) -> int:", "f", difficulty, test_cases=(case,) * n_public,
                hidden_test_cases=(case,) * n_hidden, reference_cpu_s=ref_cpu)


def _result(public, hidden, *, events=(), cpu=0.001, status=None, timeout_at=None, peak_kb=1000, limit_kb=0):
    tests = []
    for i, ok in enumerate(public + hidden):
        s = TestStatus.PASSED if ok else TestStatus.WRONG_ANSWER
        if timeout_at == i:
            s = TestStatus.TIMEOUT
        tests.append(TestOutcome(i, i >= len(public), s))
    if status is None:
        status = ExecStatus.PASSED if all(public + hidden) else ExecStatus.FAILED
    return ExecResult(status, tuple(tests), cpu, peak_kb, 0.01, events=tuple(events), memory_limit_kb=limit_kb)


def test_full_pass_earns_one_plus_difficulty_bonus():
    r = compute_reward(_task(0.5), "def f(x): return x", _result([1, 1], [1, 1, 1]), CFG)
    assert r.pass_fraction == 1.0 and r.difficulty_bonus == CFG.difficulty_bonus * 0.5
    assert r.total == 1.0 + CFG.difficulty_bonus * 0.5


def test_passing_public_and_failing_hidden_is_flagged_as_hardcoding():
    r = compute_reward(_task(), "def f(x): return 1", _result([1, 1], [0, 1, 0]), CFG)
    assert r.hardcoding_suspected and r.difficulty_bonus == 0
    assert r.pass_fraction == 1 / 3  # hidden tests decide


def test_timeout_scores_zero_on_the_pass_term():
    r = compute_reward(_task(), "def f(x):\n while 1: pass", _result([1, 1], [1, 1, 1], timeout_at=4), CFG)
    assert r.pass_fraction == 0.0 and r.total <= 0


def test_no_code_gets_the_format_penalty():
    r = compute_reward(_task(), "", _result([0, 0], [0, 0, 0], status=ExecStatus.NO_ENTRY_POINT), CFG)
    assert r.format_penalty == CFG.format_penalty and r.total == -CFG.format_penalty


def test_observed_interference_is_penalised():
    r = compute_reward(_task(), "x", _result([1, 1], [1, 1, 1], events=["output_flood"]), CFG)
    assert r.interference_penalty == CFG.interference_penalty


def test_slow_solution_pays_an_efficiency_penalty_capped_at_its_weight():
    fast = compute_reward(_task(), "x", _result([1, 1], [1, 1, 1], cpu=0.004), CFG)
    slow = compute_reward(_task(), "x", _result([1, 1], [1, 1, 1], cpu=50.0), CFG)
    assert fast.efficiency_penalty == 0 and 0 < slow.efficiency_penalty <= CFG.efficiency_weight


def test_all_or_nothing_mode():
    cfg = RewardConfig(partial_credit=False)
    assert compute_reward(_task(), "x", _result([1, 1], [1, 0, 1]), cfg).pass_fraction == 0.0


bits = st.lists(st.booleans(), min_size=3, max_size=3)


@given(public=st.lists(st.booleans(), min_size=2, max_size=2), hidden=bits, difficulty=st.floats(0, 1),
       cpu=st.floats(0, 100), flood=st.booleans(), peak_kb=st.integers(0, 1 << 22))
def test_reward_stays_within_its_bounds(public, hidden, difficulty, cpu, flood, peak_kb):
    r = compute_reward(_task(difficulty), "x", _result(public, hidden, cpu=cpu, peak_kb=peak_kb, limit_kb=1 << 19,
                                                         events=["output_flood"] if flood else []), CFG)
    low = -(CFG.efficiency_weight + CFG.interference_penalty + CFG.format_penalty + CFG.memory_weight)
    assert low <= r.total <= 1 + CFG.difficulty_bonus
    assert 0 <= r.pass_fraction <= 1


@given(hidden=bits, extra=st.integers(0, 2), difficulty=st.floats(0, 1))
def test_passing_more_hidden_tests_never_lowers_the_reward(hidden, extra, difficulty):
    better = list(hidden)
    for i in range(len(better)):
        if not better[i] and extra > 0:
            better[i], extra = True, extra - 1
    a = compute_reward(_task(difficulty), "x", _result([1, 1], hidden), CFG)
    b = compute_reward(_task(difficulty), "x", _result([1, 1], better), CFG)
    assert b.total >= a.total


def test_learnability_rewards_tasks_the_policy_sometimes_solves():
    from spade.reward import learnability

    assert learnability(0.0) == 0.0 and learnability(1.0) == 0.0
    assert learnability(0.25) == 0.75 and learnability(0.75) == 0.25


def test_code_the_screen_flagged_for_network_access_is_penalised():
    r = compute_reward(_task(), "x", _result([1, 1], [1, 1, 1], events=["screen:network"]), CFG)
    assert r.interference_penalty == CFG.interference_penalty
    clean = compute_reward(_task(), "x", _result([1, 1], [1, 1, 1], events=["screen:dynamic_exec"]), CFG)
    assert clean.interference_penalty == 0


@pytest.mark.parametrize("event", ["stray_output", "file_access", "socket", "process_spawn", "syscall_denied",
                                   "output_flood"])
def test_interference_the_sandbox_observed_is_penalised(event):
    r = compute_reward(_task(), "x", _result([1, 1], [1, 1, 1], events=[event, "test_timeout"]), CFG)
    assert r.interference_penalty == CFG.interference_penalty
    assert r.total == pytest.approx(1 + CFG.difficulty_bonus * 0.5 - CFG.interference_penalty)


@pytest.mark.parametrize(("peak_kb", "share"), [(0, 0.0), (1000, 0.0), (256 * 1024, 0.0), (384 * 1024, 0.5),
                                                (512 * 1024, 1.0), (900 * 1024, 1.0)])
def test_peak_memory_above_the_free_fraction_of_the_limit_costs_up_to_the_memory_weight(peak_kb, share):
    r = compute_reward(_task(), "x", _result([1, 1], [1, 1, 1], peak_kb=peak_kb, limit_kb=512 * 1024), CFG)
    assert r.memory_penalty == pytest.approx(CFG.memory_weight * share)
    assert r.total == pytest.approx(1 + CFG.difficulty_bonus * 0.5 - CFG.memory_weight * share)


def test_no_memory_penalty_when_the_limit_is_unknown_or_the_term_is_off():
    hog = _result([1, 1], [1, 1, 1], peak_kb=1 << 20)
    assert compute_reward(_task(), "x", hog, CFG).memory_penalty == 0.0
    limited = _result([1, 1], [1, 1, 1], peak_kb=1 << 20, limit_kb=1 << 19)
    assert compute_reward(_task(), "x", limited, RewardConfig(memory_weight=0)).memory_penalty == 0.0
    assert compute_reward(_task(), "x", limited, RewardConfig(memory_free_fraction=1)).memory_penalty == 0.0


def test_an_internal_error_of_the_sandbox_is_a_failure_without_a_format_penalty():
    tests = tuple(TestOutcome(i, i >= 2, TestStatus.INTERNAL_ERROR, error="worker died") for i in range(5))
    result = ExecResult(ExecStatus.INTERNAL_ERROR, tests, 0.0, 0, 0.0, events=("internal_error",))
    r = compute_reward(_task(), "def f(x): return x", result, CFG)
    assert r.pass_fraction == 0.0 and r.total == 0.0 and r.format_penalty == 0.0
