"""SPADE as an environment, driven by your own sampler: draw, answer, report; the controller moves.

Run: .venv/bin/python examples/env_quickstart.py [RUN_DIR]
The "model" here answers with each task's reference solution (its second sample adds prose after the code), so the
script runs in seconds without weights and the controller raises the difficulty; put your sampler in `answer`.
"""

import sys

from spade.config import load_config
from spade.env import Environment


def answer(messages: list[dict[str, str]], drawn, k: int) -> str:
    # Your model goes here: `messages` is the chat prompt (system + user, public tests only).
    return f"```python\n{drawn.task.reference_solution}\n```" + ("\nThis loops once." if k % 2 else "")


def main(run_dir: str) -> None:
    config = load_config("tiny", {"evolution.coevolve_every": 1})
    with Environment.open(run_dir, config) as env:  # resumes if RUN_DIR already holds a run
        for _ in range(3):
            drawn = env.draw(4)  # fresh tasks at the controller's difficulties, plus the replay share
            completions = [answer(d.messages(), d, k) for d in drawn for k in range(2)]
            task_ids = [d.task.task_id for d in drawn for _ in range(2)]
            graded, report = env.step(task_ids, completions, model="my-model")  # grade + commit one iteration
            print(f"iteration {report.iteration}: pass rate {report.metrics['pass_rate']:.2f}, "
                  f"rewards {[round(g.reward.total, 2) for g in graded[:4]]}..., decisions {len(report.decisions)}")
        moved = {f: d for f, d in env.difficulties().items() if d != config.evolution.initial_difficulty}
        print(f"families moved: {moved}; see `spade status {run_dir}`")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "runs/env-quickstart")
