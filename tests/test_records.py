"""Records that cross stages: what an update stores and what a rollout reports."""

from spade.records import Candidate, ExecResult, ExecStatus, Reward, Rollout, TestOutcome, TestStatus, UpdateResult


def test_an_update_stores_only_the_fields_it_set_and_its_details_beside_them():
    rft = UpdateResult(method="rft", examples=4, steps=1, loss_first=1.5, loss_last=1.2, seconds=3.0, fresh=2,
                       replayed=2, checkpoint="checkpoints/ckpt-00000001", details={"epochs": 1})
    assert rft.to_dict() == {"method": "rft", "examples": 4, "steps": 1, "loss_first": 1.5, "loss_last": 1.2,
                             "seconds": 3.0, "fresh": 2, "replayed": 2, "checkpoint": "checkpoints/ckpt-00000001",
                             "epochs": 1}
    assert UpdateResult(skipped="no passing samples yet").to_dict() == {"skipped": "no passing samples yet"}
    rollback = UpdateResult(rollback=True, reason="worse", restored="ckpt-00000000", lr=5e-5)
    assert rollback.to_dict() == {"rollback": True, "reason": "worse", "restored": "ckpt-00000000", "lr": 5e-5}


def test_a_rollout_passes_only_when_every_test_ran_and_passed():
    cand = Candidate("t:0:0", "t", "text", "def f(): ...", "m", "h")
    passed = ExecResult(ExecStatus.PASSED, (TestOutcome(0, False, TestStatus.PASSED),), 0.01, 100, 0.02)
    empty = ExecResult(ExecStatus.PASSED, (), 0.0, 0, 0.0)
    assert Rollout(cand, passed, Reward(1.0, 1.0)).passed
    assert not Rollout(cand, empty, Reward(0.0, 0.0)).passed
    assert Rollout(cand, passed, Reward(1.0, 1.0)).summary()["acc"] == 1.0
