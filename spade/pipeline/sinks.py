"""Metric sinks beyond the run database: TensorBoard when `run.tensorboard` is on, MLflow when `run.mlflow` is on.

In: one iteration's metrics dict, after its commit. Out: scalars under RUN_DIR/tensorboard (step = iteration),
or an MLflow run (the tracking URI comes from MLflow's own environment). The database stays the source of truth.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from spade.config import RunConfig
from spade.errors import ConfigError


class MetricSinks:
    def __init__(self, cfg: RunConfig, run_dir: Path):
        self._tb: Any = None
        self._mlflow: Any = None
        if cfg.tensorboard:
            try:
                from torch.utils.tensorboard import SummaryWriter
            except ImportError:
                raise ConfigError("run.tensorboard = true needs the tensorboard package: "
                                  "pip install tensorboard==2.21.0") from None
            self._tb = SummaryWriter(log_dir=str(run_dir / "tensorboard"))
        if cfg.mlflow:
            try:
                import mlflow
            except ImportError:
                raise ConfigError("run.mlflow = true needs MLflow: pip install mlflow") from None
            self._mlflow = mlflow
            mlflow.start_run(run_name=run_dir.name)

    def write(self, iteration: int, metrics: dict[str, float]) -> None:
        if self._tb is not None:
            for name, value in metrics.items():
                self._tb.add_scalar(name, value, iteration)
            self._tb.flush()
        if self._mlflow is not None:
            # MLflow metric names allow '/', '.', '-', '_', ' ' and alphanumerics; '@' is replaced.
            self._mlflow.log_metrics({k.replace("@", "_at_"): v for k, v in metrics.items()}, step=iteration)

    def close(self) -> None:
        if self._tb is not None:
            self._tb.close()
        if self._mlflow is not None:
            self._mlflow.end_run()
