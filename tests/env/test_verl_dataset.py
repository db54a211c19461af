"""verl's custom dataset hook on a live SPADE environment, and verl's reward call reporting back to it. Written
from verl's 2026 source (RLHFDataset's constructor and row keys; the batch reward manager's keyword call)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from spade.config import load_config
from spade.env import Environment
from spade.env.verl import SpadeDataset
from spade.errors import ConfigError
from spade.export.reward_fn import compute_score, compute_score_batch
from spade.groundtruth import task_from_ground_truth
from spade.store import RunStore


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    cfg = load_config(None, {"generation.families": ["list_transform"], "evolution.coevolve_every": 1,
                             "evolution.window": 4, "evolution.patience": 1, "executor.workers": 2})
    Environment.open(tmp_path / "run", cfg).close()
    return tmp_path / "run"


def test_rows_have_verls_shape_and_an_index_asked_again_is_the_same_task(run_dir: Path) -> None:
    ds = SpadeDataset(data_files=["ignored.parquet"], tokenizer=None,
                      config={"spade_run_dir": str(run_dir), "spade_draw_size": 2}, processor=None, max_samples=10)
    assert isinstance(ds, torch.utils.data.Dataset) and len(ds) == 10
    row = ds[3]
    assert {"raw_prompt", "data_source", "reward_model", "extra_info", "index", "dummy_tensor", "tools_kwargs",
            "interaction_kwargs"} <= set(row)
    assert [m["role"] for m in row["raw_prompt"]] == ["system", "user"]
    assert row["extra_info"]["task_id"] == task_from_ground_truth(row["reward_model"]["ground_truth"]).task_id
    assert ds[3]["extra_info"]["task_id"] == row["extra_info"]["task_id"]
    assert ds[4]["extra_info"]["task_id"] != row["extra_info"]["task_id"]


def test_verls_reward_call_on_live_rows_reports_to_the_environment(run_dir: Path) -> None:
    ds = SpadeDataset(config={"spade_run_dir": str(run_dir), "spade_draw_size": 2})
    rows = [ds[0], ds[1]]
    env = Environment.open(run_dir)
    right = [f"```python\n{env.task(r['extra_info']['task_id']).reference_solution}\n```" for r in rows]
    out = compute_score_batch(data_sources=[r["data_source"] for r in rows], solution_strs=right,
                              ground_truths=[r["reward_model"]["ground_truth"] for r in rows],
                              extra_infos=[r["extra_info"] for r in rows])
    assert [o["acc"] for o in out] == [1.0, 1.0]
    single = compute_score(rows[0]["data_source"], "no code", rows[0]["reward_model"]["ground_truth"],
                           rows[0]["extra_info"])
    assert single["acc"] == 0.0
    with RunStore(run_dir, read_only=True) as store:
        assert store.last_iteration() == 1  # one iteration per reward call
        assert {m for (m,) in store.query("SELECT DISTINCT model FROM candidates")} == {"verl"}
        assert store.state_after(1).controller["steps"] == 3


def test_without_a_run_directory_the_dataset_says_how_to_name_one(monkeypatch) -> None:
    monkeypatch.delenv("SPADE_RUN_DIR", raising=False)
    with pytest.raises(ConfigError, match=r"\+data.spade_run_dir=RUN_DIR"):
        SpadeDataset(config={})
