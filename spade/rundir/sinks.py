"""Metric sinks beyond the run database: TensorBoard (`run.tensorboard`), MLflow (`run.mlflow`), Weights & Biases
(`run.wandb`).

In: one iteration's metrics dict, after its commit. Out: scalars under RUN_DIR/tensorboard (step = iteration), an
MLflow run (the tracking URI comes from MLflow's own environment), or a W&B run under RUN_DIR/wandb (`run.wandb_mode`:
offline by default, nothing leaves the machine; `wandb sync` uploads it later). The database stays the source of truth.
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
        self._wandb: Any = None
        if cfg.wandb:
            try:
                import wandb
            except ImportError:
                raise ConfigError("run.wandb = true needs Weights & Biases: pip install wandb==0.31.0") from None
            (run_dir / "wandb").mkdir(parents=True, exist_ok=True)
            self._wandb = wandb.init(project=cfg.wandb_project, name=run_dir.name, dir=str(run_dir),
                                     mode=cfg.wandb_mode, reinit="create_new")

    def write(self, iteration: int, metrics: dict[str, float]) -> None:
        if self._tb is not None:
            for name, value in metrics.items():
                self._tb.add_scalar(name, value, iteration)
            self._tb.flush()
        if self._mlflow is not None:
            # MLflow metric names allow '/', '.', '-', '_', ' ' and alphanumerics; '@' is replaced.
            self._mlflow.log_metrics({k.replace("@", "_at_"): v for k, v in metrics.items()}, step=iteration)
        if self._wandb is not None:
            self._wandb.log({**metrics, "iteration": iteration}, step=iteration)

    def close(self) -> None:
        if self._tb is not None:
            self._tb.close()
        if self._mlflow is not None:
            self._mlflow.end_run()
        if self._wandb is not None:
            self._wandb.finish()
