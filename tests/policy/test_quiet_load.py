"""Loading the model and wrapping it for LoRA, as the loop's trainer does, prints no third-party warning."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import torch
from peft import LoraConfig, get_peft_model
from spade.policy.model_files import load_model
torch.set_num_threads(1)
model, _ = load_model("float32")
get_peft_model(model, LoraConfig(r=4, target_modules=["q_proj"], task_type="CAUSAL_LM"))
print("wrapped")
"""


def test_the_loaded_model_wraps_for_lora_without_a_future_warning() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PYTHONWARNINGS", None)  # Python's default filters: a FutureWarning is shown
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "wrapped", done.stderr[-2000:]
    assert "Warning" not in done.stderr, done.stderr[-2000:]
