"""The task and rollout metrics the loop and the environment's reports both record (one function)."""

import pytest

from spade.config import EvolutionConfig
from spade.curriculum import Controller
from spade.records import Candidate, ExecResult, ExecStatus, Reward, Rollout, TestOutcome, TestStatus
from spade.rollout.metrics import iteration_metrics


def _rollout(k: int, status: ExecStatus, code: str = "def f(x): return x", reward: float = 0.0,
             hardcoding: bool = False) -> Rollout:
    test_status = {ExecStatus.PASSED: TestStatus.PASSED, ExecStatus.TIMEOUT: TestStatus.TIMEOUT}.get(
        status, TestStatus.WRONG_ANSWER)
    cand = Candidate(f"t:0:{k}", "t", code, code, "m", "h")
    result = ExecResult(status, (TestOutcome(0, False, test_status),), 0.01, 900, 0.02)
    return Rollout(cand, result, Reward(reward, float(status is ExecStatus.PASSED), hardcoding_suspected=hardcoding))


def test_the_metrics_count_tasks_and_summarise_rollouts_and_difficulties():
    rollouts = [_rollout(0, ExecStatus.PASSED, reward=1.2), _rollout(1, ExecStatus.TIMEOUT),
                _rollout(2, ExecStatus.FAILED, code="", reward=-0.1), _rollout(3, ExecStatus.FAILED, hardcoding=True)]
    controller = Controller(EvolutionConfig(), ["sorting", "digits"])
    m = iteration_metrics(rollouts, accepted=3, replayed=1, rejected=2, controller=controller)
    assert (m["tasks_accepted"], m["tasks_replayed"], m["tasks_rejected"], m["rollouts"]) == (3, 1, 2, 4)
    assert m["pass_rate"] == 0.25 and m["mean_reward"] == pytest.approx(1.1 / 4)
    assert m["timeout_share"] == 0.25 and m["no_code_share"] == 0.25 and m["hardcoding_suspected"] == 1
    assert m["difficulty/sorting"] == controller.difficulty("sorting") and "difficulty/digits" in m


def test_no_rollouts_give_zero_rates_not_an_error():
    m = iteration_metrics([], accepted=0, replayed=0, rejected=5, controller=Controller(EvolutionConfig(), ["x"]))
    assert m["rollouts"] == 0 and m["pass_rate"] == 0 and m["mean_reward"] == 0 and m["tasks_rejected"] == 5
