"""SpadeDataset and the step groups without verl installed (tests/env/test_verl_integration.py drives verl's own
code): row shape, bounded validation set, one iteration per completed step group."""

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
                      config={"spade_run_dir": str(run_dir), "spade_draw_size": 2, "spade_rollout_n": 1},
                      processor=None, max_samples=10)
    assert isinstance(ds, torch.utils.data.Dataset) and len(ds) == 10
    row = ds[3]
    assert {"raw_prompt", "data_source", "reward_model", "extra_info", "index", "dummy_tensor", "tools_kwargs",
            "interaction_kwargs"} <= set(row)
    assert [m["role"] for m in row["raw_prompt"]] == ["system", "user"]
    assert row["extra_info"]["task_id"] == task_from_ground_truth(row["reward_model"]["ground_truth"]).task_id
    assert ds[3]["extra_info"]["task_id"] == row["extra_info"]["task_id"]
    assert ds[4]["extra_info"]["task_id"] != row["extra_info"]["task_id"]


def test_a_step_group_is_reported_once_when_its_last_answer_is_graded(run_dir: Path) -> None:
    config = {"spade_run_dir": str(run_dir), "spade_draw_size": 2, "train_batch_size": 2, "spade_rollout_n": 2}
    ds = SpadeDataset(data_files=["train"], config=config)
    rows = [ds[0], ds[1]]
    assert rows[0]["extra_info"]["spade_group"] == rows[1]["extra_info"]["spade_group"] != ds[2]["extra_info"][
        "spade_group"]
    env = Environment.open(run_dir)
    right = [f"```python\n{env.task(r['extra_info']['task_id']).reference_solution}\n```" for r in rows]
    first = compute_score_batch(data_sources=[r["data_source"] for r in rows], solution_strs=right,
                                ground_truths=[r["reward_model"]["ground_truth"] for r in rows],
                                extra_infos=[r["extra_info"] for r in rows])
    assert [o["acc"] for o in first] == [1.0, 1.0]
    with RunStore(run_dir, read_only=True) as store:
        assert store.last_iteration() == -1  # 2 of the group's 4 answers: nothing reported yet
    for r in rows:  # verl's naive manager: one keyword call per sample
        assert compute_score(data_source=r["data_source"], solution_str="no code",
                             ground_truth=r["reward_model"]["ground_truth"], extra_info=r["extra_info"])["acc"] == 0
    with RunStore(run_dir, read_only=True) as store:
        assert store.last_iteration() == 0  # the whole group, one iteration
        assert len(store.query("SELECT * FROM candidates")) == 4
        assert {m for (m,) in store.query("SELECT DISTINCT model FROM candidates")} == {"verl"}
        assert store.state_after(0).controller["steps"] == 2


def test_the_validation_set_is_bounded_and_never_reports(run_dir: Path) -> None:
    config = {"spade_run_dir": str(run_dir), "train_files": "t.parquet", "val_files": "v.parquet",
              "spade_val_size": 3, "spade_rollout_n": 1}
    val = SpadeDataset(data_files="v.parquet", config=config)
    assert len(val) == 3 and "spade_run_dir" not in val[0]["extra_info"]
    assert len(SpadeDataset(data_files="t.parquet", config=config)) == 100_000
    out = compute_score(val[0]["data_source"], "no code", val[0]["reward_model"]["ground_truth"], val[0]["extra_info"])
    assert out["acc"] == 0.0
    with RunStore(run_dir, read_only=True) as store:
        assert store.last_iteration() == -1


def test_a_training_set_needs_the_samples_per_prompt(run_dir: Path) -> None:
    with pytest.raises(ConfigError, match=r"\+data.spade_rollout_n=N"):
        SpadeDataset(config={"spade_run_dir": str(run_dir)})
    with pytest.raises(ConfigError, match="data.val_files another value"):
        SpadeDataset(data_files="x", config={"spade_run_dir": str(run_dir), "train_files": "x", "val_files": "x"})


def test_without_a_run_directory_the_dataset_says_how_to_name_one(monkeypatch) -> None:
    monkeypatch.delenv("SPADE_RUN_DIR", raising=False)
    with pytest.raises(ConfigError, match=r"\+data.spade_run_dir=RUN_DIR"):
        SpadeDataset(config={})
