"""TRL's own GRPOTrainer trains the embedded SmolLM2-135M on CPU on SPADE's live curriculum: prompts are drawn from
the environment as TRL reads them, rewards graded in SPADE's sandbox, and the controller's window and decisions are
made of exactly the rollouts TRL generated. Slow: a few minutes on 2 cores."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from spade.config import load_config
from spade.env import Environment
from spade.env.trl import SpadeReward, live_dataset
from spade.store import RunStore

pytestmark = pytest.mark.slow

FAMILY = "list_transform"


class Recorder(SpadeReward):
    """SpadeReward that also keeps what TRL handed it, to compare with what the run recorded."""

    def __init__(self, env: Environment) -> None:
        super().__init__(env, model="trl:smollm2")
        self.calls: list[tuple[list[str], list[str]]] = []

    def __call__(self, prompts: Any, completions: Any, **kw: Any) -> list[float]:
        self.calls.append((list(kw["task_id"]), [c[-1]["content"] for c in completions]))
        return super().__call__(prompts, completions, **kw)


def test_grpo_trainer_trains_on_the_live_curriculum_and_its_rollouts_drive_the_controller(tmp_path: Path) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import GRPOConfig, GRPOTrainer

    from spade.policy.model_files import ensure_converted

    # Every window below the band's floor moves the family down: decisions must appear within a few reports.
    cfg = load_config(None, {"generation.families": [FAMILY], "generation.tasks_per_iteration": 2,
                             "evolution.coevolve_every": 1, "evolution.window": 4, "evolution.patience": 1,
                             "evolution.success_low": 0.95, "evolution.success_high": 0.99,
                             "evolution.replay_ratio": 0.0, "executor.workers": 2})
    env = Environment.open(tmp_path / "run", cfg)
    start = env.difficulties()[FAMILY]
    model_dir = str(ensure_converted())
    torch.set_num_threads(1)  # 2 OpenMP threads on a shared 2-core host were measured far slower than one
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_pretrained(model_dir, local_files_only=True, dtype=torch.float32)
    tokenizer = AutoTokenizer.from_pretrained(model_dir, local_files_only=True)
    reward = Recorder(env)
    args = GRPOConfig(output_dir=str(tmp_path / "out"), use_cpu=True, bf16=False, report_to=[], save_strategy="no",
                      max_steps=3, per_device_train_batch_size=4, num_generations=2, max_completion_length=32,
                      learning_rate=1e-5, logging_steps=1, disable_tqdm=True, seed=0, shuffle_dataset=False,
                      remove_unused_columns=False, temperature=1.0, beta=0.0)
    trainer = GRPOTrainer(model=model, reward_funcs=[reward], args=args, train_dataset=live_dataset(env, 2),
                          processing_class=tokenizer)
    trainer.train()
    env.close()

    assert len(reward.calls) == 3  # one generation batch per step
    with RunStore(tmp_path / "run", read_only=True) as store:
        assert store.last_iteration() == 2  # one committed iteration per reward call
        rows = store.query("SELECT iteration, task_id, completion, model FROM candidates ORDER BY iteration, rowid")
        assert [r[3] for r in rows] == ["trl:smollm2"] * 12
        for i, (ids, texts) in enumerate(reward.calls):
            assert [(r[1], r[2]) for r in rows if r[0] == i] == list(zip(ids, texts))  # TRL's completions, as is
        passes = [p for (p,) in store.query("SELECT e.status = 'passed' FROM candidates c JOIN executions e"
                                             " USING(candidate_id) ORDER BY c.iteration, c.rowid")]
        decisions = store.query("SELECT iteration, family, old_difficulty, new_difficulty, window_mean, window_size"
                                " FROM decisions ORDER BY iteration")
        state = store.state_after(2).controller
        tasks_drawn = store.query("SELECT COUNT(*) FROM tasks")[0][0]
    # Each report: 2 prompts x 2 completions, observed per task (2 controller steps).
    assert state["steps"] == 6
    assert decisions, "no decision: the controller did not move on TRL's rollouts"
    first = decisions[0]
    assert first[1] == FAMILY and first[2] == start and first[3] != start
    assert (first[3] < start) == (first[4] < 0.95)  # down below the band, up above it
    # The window behind the first decision is made of TRL's rollouts of that report (window 4: its 4 completions).
    assert first[5] == 4 and first[4] == pytest.approx(sum(passes[4 * first[0]:4 * first[0] + 4]) / 4)
    # Drawn live, not from a fixed file: more tasks than one draw, at the difficulty the controller held then.
    assert tasks_drawn >= 4
    assert trainer.state.log_history and any("loss" in e for e in trainer.state.log_history)
