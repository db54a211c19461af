"""TRL's GRPOTrainer on SPADE's live curriculum, with the embedded SmolLM2-135M-Instruct, on a CPU.

Run: .venv/bin/python examples/trl_grpo.py [--steps 12] [--run-dir runs/trl-grpo]
Lengths fit the embedded model's answers (a whole function fits in 192 tokens), the curriculum starts at the easiest
difficulty, and each step's mean SPADE reward and pass rate are printed, then the first and last few steps' means.
For a GPU run: a larger model, more steps, `num_generations` 8+, `max_completion_length` 512 and vLLM
(`use_vllm=True`); `device_args()` already picks bf16 there.
"""

from __future__ import annotations

import argparse

from transformers import AutoModelForCausalLM, AutoTokenizer
from trl import GRPOConfig, GRPOTrainer

from spade.config import load_config
from spade.env import Environment
from spade.env.trl import SpadeReward, device_args, live_dataset
from spade.policy.model_files import ensure_converted


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=12)
    ap.add_argument("--run-dir", default="runs/trl-grpo")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    model_dir = str(ensure_converted())
    model = AutoModelForCausalLM.from_pretrained(model_dir)
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    config = load_config("tiny", {"evolution.initial_difficulty": 0.0, "evolution.difficulty_low": 0.0, "generation.kinds": {"python_function": 1},
                                  "selfplay.enabled": False, "run.seed": args.seed})
    with Environment.open(args.run_dir, config) as env:
        trainer = GRPOTrainer(
            model=model, processing_class=tokenizer, reward_funcs=[SpadeReward(env, model="trl-grpo")],
            train_dataset=live_dataset(env, draw_size=4),
            args=GRPOConfig(output_dir=f"{args.run_dir}/out", max_steps=args.steps, num_generations=4,
                            per_device_train_batch_size=8, max_completion_length=192, learning_rate=2e-6,
                            temperature=0.8, logging_steps=1, report_to=[], seed=args.seed, **device_args()))
        trainer.train()
    steps = [h for h in trainer.state.log_history if "reward" in h]
    for h in steps:
        print(f"step {h['step']:>3}: mean reward {h['reward']:+.3f}, pass rate {h.get('spade/pass_rate', float('nan')):.3f}")
    if len(steps) >= 4:
        k = max(2, len(steps) // 4)
        first = sum(h["reward"] for h in steps[:k]) / k
        last = sum(h["reward"] for h in steps[-k:]) / k
        print(f"mean reward over the first {k} steps {first:+.3f}, over the last {k} {last:+.3f}")


if __name__ == "__main__":
    main()
