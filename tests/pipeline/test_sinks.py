import pytest

from spade.config import RunConfig
from spade.pipeline.sinks import MetricSinks


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
