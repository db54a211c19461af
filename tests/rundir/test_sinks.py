import time

import pytest

from spade.config import RunConfig
from spade.rundir.sinks import MetricSinks


def test_metrics_reach_tensorboard_as_scalars_per_iteration(tmp_path):
    pytest.importorskip("tensorboard")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    sinks = MetricSinks(RunConfig(tensorboard=True), tmp_path)
    sinks.write(0, {"pass_rate": 0.25, "difficulty/sorting": 0.3})
    sinks.write(1, {"pass_rate": 0.5, "difficulty/sorting": 0.35})
    sinks.close()
    events = EventAccumulator(str(tmp_path / "tensorboard"))
    events.Reload()
    assert [(s.step, s.value) for s in events.Scalars("pass_rate")] == [(0, 0.25), (1, 0.5)]
    assert events.Scalars("difficulty/sorting")[-1].value == pytest.approx(0.35)


def test_sinks_are_off_by_default(tmp_path):
    sinks = MetricSinks(RunConfig(), tmp_path)
    sinks.write(0, {"pass_rate": 1.0})
    sinks.close()
    assert not (tmp_path / "tensorboard").exists()


def test_metrics_reach_an_offline_weights_and_biases_run_under_the_run_directory(tmp_path, monkeypatch):
    pytest.importorskip("wandb")
    monkeypatch.setenv("WANDB_SILENT", "true")
    sinks = MetricSinks(RunConfig(wandb=True), tmp_path)  # offline by default: nothing leaves the machine
    sinks.write(0, {"pass_rate": 0.25, "difficulty/sorting": 0.3})
    sinks.write(1, {"pass_rate": 0.5, "difficulty/sorting": 0.35})
    sinks.close()
    runs = list((tmp_path / "wandb").glob("offline-run-*/run-*.wandb"))
    assert len(runs) == 1

    def logged() -> bool:  # W&B's record log: each history row's keys and JSON values stored as text
        data = runs[0].read_bytes()
        return b"pass_rate" in data and b"difficulty/sorting" in data and b"0.35" in data

    deadline = time.monotonic() + 60  # wandb-core may still be writing the log after finish() returns
    while not logged() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert logged()


def test_wandb_without_the_package_is_named_in_one_line(tmp_path, monkeypatch):
    import builtins

    real = builtins.__import__
    monkeypatch.setattr(builtins, "__import__",
                        lambda name, *a, **k: (_ for _ in ()).throw(ImportError(name)) if name == "wandb" else real(name, *a, **k))
    from spade.errors import ConfigError

    with pytest.raises(ConfigError, match="pip install wandb==0.31.0"):
        MetricSinks(RunConfig(wandb=True), tmp_path)
