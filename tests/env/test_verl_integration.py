"""verl 0.9.1's own code with SPADE as docs/integrations.md documents it: Hydra composes verl's ppo_trainer config
from the documented overrides, verl's create_rl_dataset builds the train and validation sets from SpadeDataset,
verl's sampler / dataloader / collate_fn take a batch, and verl's RewardLoopWorker (naive and DAPO managers) scores
it with SPADE's compute_score, split over two worker processes as verl's reward loop splits a batch.
verl lives in its own virtualenv (.ci/verl_env.sh; its pins clash with SPADE's [model] extra): env SPADE_VERL_VENV,
default .venv-verl. Without it these tests skip, saying so; CI builds it."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from spade.config import load_config
from spade.env import Environment
from spade.export.formats import verl_rows
from spade.store import RunStore

ROOT = Path(__file__).resolve().parents[2]
VENV = Path(os.environ.get("SPADE_VERL_VENV", ROOT / ".venv-verl"))
PYTHON = VENV / "bin" / "python"
DRIVER = Path(__file__).with_name("verl_driver.py")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not PYTHON.is_file(), reason=f"no verl virtualenv at {VENV}: run `bash .ci/verl_env.sh` "
                       "(CI does) or set SPADE_VERL_VENV"),
]

BATCH, N = 2, 2


def documented_overrides(run_dir: Path, model_dir: str) -> list[str]:
    """docs/integrations.md's verl overrides (the SPADE part), plus the sizes of this test."""
    return [
        "data.custom_cls.path=spade/env/verl.py", "data.custom_cls.name=SpadeDataset",
        f"+data.spade_run_dir={run_dir}", "data.val_files=spade-val",
        "reward.custom_reward_function.path=spade/export/reward_fn.py",
        "reward.custom_reward_function.name=compute_score",
        f"data.train_batch_size={BATCH}", f"actor_rollout_ref.rollout.n={N}", "+data.spade_val_size=3",
        f"actor_rollout_ref.model.path={model_dir}",
    ]


def drive(request: dict, tmp_path: Path) -> dict:
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "RAY_DISABLE_USAGE_STATS": "1", "TOKENIZERS_PARALLELISM": "false"}
    proc = subprocess.run([str(PYTHON), str(DRIVER), str(path)], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=900)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    assert proc.returncode == 0 and lines, f"verl driver failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}"
    return json.loads(lines[-1][len("RESULT "):])


@pytest.fixture(scope="module")
def model_dir() -> str:
    from spade.policy.model_files import ensure_converted

    return str(ensure_converted())  # the embedded model's tokenizer, which verl's reward worker decodes with


@pytest.mark.parametrize("manager", ["naive", "dapo"])
def test_one_verl_step_is_one_iteration_and_validation_stays_out_of_the_controller(manager: str, tmp_path: Path,
                                                                                   model_dir: str) -> None:
    cfg = load_config(None, {"generation.families": ["list_transform"], "executor.workers": 2,
                             "evolution.replay_ratio": 0.0, "generation.tasks_per_iteration": BATCH})
    run_dir = tmp_path / "run"
    Environment.open(run_dir, cfg).close()
    overrides = [*documented_overrides(run_dir, model_dir), f"reward.reward_manager.name={manager}"]
    out = drive({"op": "train_step", "overrides": overrides, "workers": 2}, tmp_path)

    assert out["manager"] == manager and out["custom_path"] == "spade/export/reward_fn.py"
    assert out["val_len"] == 3  # bounded, not the live stream's length
    assert out["train_len"] > 1000  # the live stream: verl sizes its schedule from it
    assert len(out["train"]) == BATCH * N
    # SPADE's scorer ran (not verl's default, which raises for data_source 'spade'): its dict keys, its verdicts.
    assert all({"score", "acc", "pass_fraction"} <= set(o) for o in out["train"])
    assert [o["acc"] for o in out["train"]] == [1.0, 0.0] * BATCH  # each prompt's first sample is its reference
    assert [o["acc"] for o in out["val"]] == [0.0, 0.0, 0.0]
    with RunStore(run_dir, read_only=True) as store:
        iterations = store.query("SELECT DISTINCT iteration FROM candidates")
        candidates = store.query("SELECT task_id, model FROM candidates")
        steps = store.state_after(store.last_iteration()).controller["steps"]
    assert len(iterations) == 1  # the step's 4 samples, scored in two worker processes: one committed iteration
    assert sorted(t for t, _ in candidates) == sorted(out["task_ids"]) and {m for _, m in candidates} == {"verl"}
    assert steps == BATCH  # observed per task: the validation answers never reached the controller
    assert not any((run_dir / "groups").glob("*/*.pkl"))  # the group was reported and its files removed


def test_verl_code_truth_rows_are_scored_by_verls_own_code_scorer(tmp_path: Path) -> None:
    from spade.evaluate import load_suite

    tasks = [t for t in load_suite("builtin") if t.task_id == "builtin/sum_evens"]
    rows = verl_rows(tasks, verl_code=True)
    right = "```python\ndef sum_evens(nums):\n    return sum(n for n in nums if n % 2 == 0)\n```"
    wrong = "```python\ndef sum_evens(nums):\n    return -1\n```"
    out = drive({"op": "default_score", "rows": rows * 2, "responses": [right, wrong]}, tmp_path)
    assert out["scores"] == [1.0, 0.0]
    assert rows[0]["data_source"] != "spade"
