"""scripts/setup.sh picks the torch build by what the machine has and says which; run for real against a stand-in
.venv/bin/python that records the pip commands instead of installing."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CPU_INDEX = "https://download.pytorch.org/whl/cpu"

# Answers `import torch` as $FAKE_TORCH says (empty: not installed), records `-m pip` and `-m spade` calls.
FAKE_PYTHON = """#!/usr/bin/env bash
if [ "$1" = -c ]; then
    [ -n "$FAKE_TORCH" ] || exit 1
    case "$2" in *print*) echo "$FAKE_TORCH";; esac
    exit 0
fi
echo "$*" >>"$CALLS"
"""


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    if shutil.which("bwrap") is None:
        pytest.skip("setup.sh would install bubblewrap first")
    repo = tmp_path / "repo"
    (repo / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "setup.sh", repo / "scripts")
    shutil.copytree(ROOT / "constraints", repo / "constraints")
    python = repo / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(FAKE_PYTHON)
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    return repo


def _setup(repo: Path, torch: str = "", gpu: bool = False) -> tuple[str, list[str]]:
    bin_dir = repo.parent / "bin"
    bin_dir.mkdir(exist_ok=True)
    if gpu:
        (bin_dir / "nvidia-smi").write_text("#!/bin/sh\n")
        (bin_dir / "nvidia-smi").chmod(0o755)
    path = os.pathsep.join([str(bin_dir)] + [p for p in os.environ["PATH"].split(os.pathsep)
                                               if not (Path(p) / "nvidia-smi").exists()])
    calls = repo / "calls.txt"
    env = {k: v for k, v in os.environ.items() if k != "SPADE_TORCH"} | {"PATH": path, "FAKE_TORCH": torch,
                                                                          "CALLS": str(calls)}
    done = subprocess.run(["bash", "scripts/setup.sh"], cwd=repo, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout, calls.read_text().splitlines()


def test_without_a_gpu_torch_comes_from_the_cpu_index(checkout: Path) -> None:
    out, calls = _setup(checkout)
    assert f"no NVIDIA GPU (no nvidia-smi): installing torch==2.13.0, the CPU build from {CPU_INDEX}" in out
    assert any(c.endswith(f"install torch==2.13.0 --extra-index-url {CPU_INDEX}") for c in calls), calls
    assert "-m spade model install" in calls


def test_with_a_gpu_torch_is_the_default_cuda_build(checkout: Path) -> None:
    out, calls = _setup(checkout, gpu=True)
    assert "nvidia-smi found): installing torch==2.13.0, the CUDA build from the default index" in out
    torch_calls = [c for c in calls if "torch==" in c]
    assert len(torch_calls) == 1 and torch_calls[0].endswith("install torch==2.13.0"), calls


def test_an_installed_torch_is_kept_and_not_re_pinned(checkout: Path) -> None:
    out, calls = _setup(checkout, torch="2.14.1+cu128", gpu=True)
    assert "torch 2.14.1+cu128 is installed in .venv; keeping it" in out
    assert not any("torch==" in c for c in calls), calls
    extras = next(c for c in calls if " -e " in c)
    constraints = extras.split(" -c ")[1].split()[0]
    assert constraints != "constraints/cpu.txt" and not Path(constraints).exists()  # a temporary copy, removed
