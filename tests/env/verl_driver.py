"""Runs inside the verl 0.9.1 virtualenv (.ci/verl_env.sh), driving verl's own code with SPADE as documented.

Usage: python driver.py REQUEST.json; prints one JSON line. Requests:
- {"op": "train_step", "overrides": [...], "workers": 2}: compose verl's ppo_trainer config with
  the overrides (Hydra, as `python -m verl.trainer.main_ppo` does), build the train and validation datasets with
  verl's create_rl_dataset, take one train batch through verl's sampler, dataloader and collate_fn, repeat it
  rollout.n times as the trainer does, and score it with verl's RewardLoopWorker (the reward manager the config
  names) split over `workers` forked processes, as verl's RewardLoopManager splits a batch over its workers; then
  score the whole validation set the same way.
- {"op": "default_score", "rows": [...], "responses": [...]}: verl's own default_compute_score on exported rows.
"""

from __future__ import annotations

import json
import multiprocessing
import sys
from pathlib import Path


def compose(overrides: list[str]):
    import verl
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir

    config_dir = str(Path(verl.__file__).parent / "trainer" / "config")
    with initialize_config_dir(config_dir=config_dir, version_base=None):
        return hydra_compose(config_name="ppo_trainer", overrides=overrides)


def proto(rows: list[dict], texts: list[str], tokenizer):
    """A DataProto as verl's agent loop hands it to the reward loop: prompts, responses, attention mask, and the
    dataset's non-tensor columns."""
    import numpy as np
    import torch
    from verl import DataProto

    ids = [tokenizer.encode(t, add_special_tokens=False) or [tokenizer.eos_token_id] for t in texts]
    width = max(map(len, ids))
    responses = torch.full((len(ids), width), tokenizer.eos_token_id, dtype=torch.long)
    mask = torch.zeros((len(ids), 1 + width), dtype=torch.long)
    for i, seq in enumerate(ids):
        responses[i, : len(seq)] = torch.tensor(seq)
        mask[i, : 1 + len(seq)] = 1
    prompts = torch.ones((len(ids), 1), dtype=torch.long)
    non_tensors = {k: np.array([r[k] for r in rows], dtype=object) for k in ("data_source", "reward_model",
                                                                             "extra_info", "index")}
    return DataProto.from_dict(tensors={"prompts": prompts, "responses": responses, "attention_mask": mask},
                               non_tensors=non_tensors)


def score(config, data, workers: int) -> list[dict]:
    """verl's RewardLoopWorker on each chunk of `data`, one forked process per chunk (verl runs one Ray actor per
    reward worker); the workers' reward dicts in order."""
    chunks = data.chunk(workers) if workers > 1 else [data]
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(len(chunks)) as pool:
        parts = pool.starmap(_score_chunk, [(config, c) for c in chunks])
    return [o for part in parts for o in part]


def _score_chunk(config, chunk) -> list[dict]:
    from verl.experimental.reward_loop import RewardLoopWorker

    worker = RewardLoopWorker(config)
    outs = worker.loop.run_until_complete(worker.compute_score_batch(chunk))
    return [{"score": float(o["reward_score"]), **{k: _plain(v) for k, v in o["reward_extra_info"].items()}}
            for o in outs]


def _plain(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return str(v)


def train_step(req: dict) -> dict:
    from torchdata.stateful_dataloader import StatefulDataLoader
    from transformers import AutoTokenizer
    from verl.trainer.ppo.utils import create_rl_dataset, create_rl_sampler
    from verl.utils.dataset.rl_dataset import collate_fn

    from spade.env import Environment

    config = compose(req["overrides"])
    tokenizer = AutoTokenizer.from_pretrained(config.actor_rollout_ref.model.path)
    train = create_rl_dataset(config.data.train_files, config.data, tokenizer, None, is_train=True,
                              max_samples=config.data.get("train_max_samples", -1))
    val = create_rl_dataset(config.data.val_files, config.data, tokenizer, None, is_train=False,
                            max_samples=config.data.get("val_max_samples", -1))
    loader = StatefulDataLoader(dataset=train, batch_size=config.data.train_batch_size, num_workers=0,
                                drop_last=True, collate_fn=collate_fn, sampler=create_rl_sampler(config.data, train))
    batch = next(iter(loader))
    n = config.actor_rollout_ref.rollout.n
    rows = [{k: batch[k][i] for k in ("data_source", "reward_model", "extra_info", "index")}
            for i in range(len(batch["index"])) for _ in range(n)]  # repeat(interleave=True), as the trainer does
    # The first sample of each prompt answers with the task's reference (read from the run), the others fail.
    env = Environment.open(config.data.spade_run_dir)
    texts = [f"```python\n{env.task(r['extra_info']['task_id']).reference_solution}\n```" if i % n == 0
             else "no code" for i, r in enumerate(rows)]
    env.close()
    train_out = score(config, proto(rows, texts, tokenizer), req.get("workers", 1))
    val_rows = [val[i] for i in range(len(val))]
    val_out = score(config, proto(val_rows, ["no code"] * len(val_rows), tokenizer), 1)
    return {"train_len": len(train), "val_len": len(val), "task_ids": [r["extra_info"]["task_id"] for r in rows],
            "train": train_out, "val": val_out, "manager": str(config.reward.reward_manager.name),
            "custom_path": str(config.reward.custom_reward_function.path)}


def default_score(req: dict) -> dict:
    from verl.utils.reward_score import default_compute_score

    out = []
    for row, text in zip(req["rows"], req["responses"]):
        out.append(float(default_compute_score(row["data_source"], text, row["reward_model"]["ground_truth"])))
    return {"scores": out}



if __name__ == "__main__":
    request = json.loads(Path(sys.argv[1]).read_text())
    result = {"train_step": train_step, "default_score": default_score}[request["op"]](request)
    print("RESULT " + json.dumps(result))
