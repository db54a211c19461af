"""A past solver's solve rate moves a task's difficulty toward 1 - rate by as many answers as it gave, against the
claimed level counted as selfplay.past_solver_prior answers (spade.selfplay.past_solver.calibrated)."""

import pytest

from spade.config import load_config
from spade.selfplay.past_solver import calibrated


@pytest.mark.parametrize(("claimed", "rate", "answers", "prior", "want"), [
    (0.3, 0.0, 2, 2.0, 0.65),  # the past solver failed both: harder than claimed
    (0.8, 1.0, 2, 2.0, 0.4),  # it solved both: easier
    (0.5, 0.5, 4, 0.0, 0.5),  # no prior: the estimate alone
    (0.42, 0.0, 0, 2.0, 0.42),  # no answers: the claim stands
])
def test_calibrated_difficulty_weights_the_claim_and_the_past_solver(claimed, rate, answers, prior, want):
    assert calibrated(claimed, rate, answers, prior) == pytest.approx(want)


def test_past_checkpoints_propose_and_calibrate_by_default():
    sp = load_config(None).selfplay
    assert sp.past_proposer_share == 0.5 and sp.past_solver_prior == 2.0 and sp.past_solver_samples > 0
