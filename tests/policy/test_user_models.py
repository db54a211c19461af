"""`training.model` names a model of the user's: a local Hugging Face directory, a GGUF file, or a name found under
SPADE_MODELS_DIR; one that is not on disk is refused in one line before a run directory is made. The reference
configuration (docs/method.md#the-reference-configuration) names qwen2.5-coder-7b: a tiny randomly initialised model
of its architecture (Qwen2), saved with the embedded tokenizer, stands in for it (nothing is downloaded);
`sampling.engine: auto` decodes it with transformers' forward, since the static decoder runs Llama layers only."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from spade.cli import main
from spade.config import SamplingConfig, TrainingConfig
from spade.errors import ConfigError
from spade.policy import model_files

REFERENCE_CONFIG = """\
executor:
  mode: docker
  image: python:3.11
  timeout: 5
  memory_limit: 512m
  network: off
evolution:
  difficulty_low: 0.2
  difficulty_high: 0.9
  coevolve_every: 20
  replay_ratio: 0.3
training:
  model: qwen2.5-coder-7b
  batch_size: 64
  lr: 1e-5
  update_method: grpo
"""


def make_tiny_llama(out: Path) -> Path:
    """A 2-layer LlamaForCausalLM with random weights and the embedded model's tokenizer (and chat template)."""
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    tokenizer = AutoTokenizer.from_pretrained(str(model_files.ensure_converted()), local_files_only=True)
    config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=2048,
                         tie_word_embeddings=True, bos_token_id=tokenizer.bos_token_id,
                         eos_token_id=tokenizer.eos_token_id)
    torch.manual_seed(0)
    LlamaForCausalLM(config).save_pretrained(str(out))
    tokenizer.save_pretrained(str(out))
    return out


def make_tiny_qwen2(out: Path) -> Path:
    """A 2-layer Qwen2ForCausalLM (biased q/k/v projections) with random weights and the embedded tokenizer."""
    import torch
    from transformers import AutoTokenizer, Qwen2Config, Qwen2ForCausalLM

    tokenizer = AutoTokenizer.from_pretrained(str(model_files.ensure_converted()), local_files_only=True)
    config = Qwen2Config(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=2048,
                         tie_word_embeddings=True, bos_token_id=tokenizer.bos_token_id,
                         eos_token_id=tokenizer.eos_token_id)
    torch.manual_seed(0)
    Qwen2ForCausalLM(config).save_pretrained(str(out))
    tokenizer.save_pretrained(str(out))
    return out


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("models")
    make_tiny_qwen2(root / "qwen2.5-coder-7b")
    make_tiny_llama(root / "tiny-llama")
    return root


def test_the_default_engine_decodes_a_qwen2_model_and_static_names_the_fix(models: Path, easy_tasks) -> None:
    from spade.errors import ModelError
    from spade.policy.decode import Decoder
    from spade.policy.embedded import EmbeddedPolicy
    from spade.policy.static_decode import StaticDecoder

    training = TrainingConfig(model=str(models / "qwen2.5-coder-7b"))
    policy = EmbeddedPolicy(SamplingConfig(dtype="float32", max_new_tokens=8, threads=1), training)
    assert policy.model.config.model_type == "qwen2"
    out = policy.sample(easy_tasks[:1], 2, seed=0)
    assert len(out[0]) == 2 and all(0 < c.new_tokens <= 8 for c in out[0])
    assert type(policy._decoder) is Decoder
    static = EmbeddedPolicy(SamplingConfig(dtype="float32", max_new_tokens=8, threads=1, engine="static"), training)
    with pytest.raises(ModelError, match=r"not 'qwen2'; set sampling.engine: hf"):
        static.sample(easy_tasks[:1], 1, seed=0)
    llama = EmbeddedPolicy(SamplingConfig(dtype="float32", max_new_tokens=8, threads=1),
                           TrainingConfig(model=str(models / "tiny-llama")))
    llama.sample(easy_tasks[:1], 1, seed=0)
    assert type(llama._decoder) is StaticDecoder  # auto keeps the fast decoder where it runs the model


def test_a_local_model_directory_is_used_as_the_policy(models: Path, easy_tasks) -> None:
    from spade.policy.embedded import EmbeddedPolicy

    policy = EmbeddedPolicy(SamplingConfig(dtype="float32", max_new_tokens=8, threads=1),
                            TrainingConfig(model=str(models / "qwen2.5-coder-7b")))
    assert sum(p.numel() for p in policy.model.parameters()) < 2_000_000  # the tiny stand-in, not SmolLM2
    out = policy.sample(easy_tasks[:1], 2, seed=0)
    assert len(out[0]) == 2 and all(c.new_tokens <= 8 for c in out[0])


def test_a_name_is_looked_up_under_spade_models_dir(models: Path, monkeypatch) -> None:
    monkeypatch.setenv("SPADE_MODELS_DIR", str(models))
    assert model_files.resolve_model("qwen2.5-coder-7b") == models / "qwen2.5-coder-7b"


def test_a_gguf_file_is_converted_once_and_used() -> None:
    gguf = model_files.find_gguf()
    assert model_files.resolve_model(str(gguf)) == model_files.ensure_converted()


def test_a_missing_model_names_where_it_was_looked_for(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("SPADE_MODELS_DIR", str(tmp_path))
    with pytest.raises(ConfigError, match=r"training.model = 'qwen2.5-coder-7b' is not on this machine") as err:
        model_files.resolve_model("qwen2.5-coder-7b")
    assert "\n" not in str(err.value) and str(tmp_path / "qwen2.5-coder-7b") in str(err.value)
    (tmp_path / "half").mkdir()
    with pytest.raises(ConfigError, match="has no config.json"):
        model_files.resolve_model(str(tmp_path / "half"))


def test_the_reference_config_without_its_model_fails_in_one_line_before_making_a_run(tmp_path: Path, monkeypatch,
                                                                                        capsys) -> None:
    monkeypatch.setenv("SPADE_MODELS_DIR", str(tmp_path / "models"))
    (tmp_path / "41.yaml").write_text(REFERENCE_CONFIG)
    code = main(["run", "--config", str(tmp_path / "41.yaml"), "--run-dir", str(tmp_path / "run")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1
    assert "training.model = 'qwen2.5-coder-7b' is not on this machine" in err
    assert not (tmp_path / "run").exists()


# Not in the reference configuration: bounds on this test's CPU time only, merged in beside its keys (unchanged).
COST_BOUNDS = {"generation": {"tasks_per_iteration": 2}, "sampling": {"sampling_n": 4, "max_new_tokens": 16},
               "eval": {"limit": 4, "gate_limit": 4}, "training": {"steps_per_update": 1}}


@pytest.mark.slow
def test_the_reference_config_runs_with_a_local_model_standing_in(models: Path, tmp_path: Path) -> None:
    import yaml

    config = yaml.safe_load(REFERENCE_CONFIG)
    for section, keys in COST_BOUNDS.items():
        assert not set(keys) & set(config.get(section, {}))  # no reference key is overridden
        config.setdefault(section, {}).update(keys)
    (tmp_path / "41.yaml").write_text(yaml.safe_dump(config))
    env = {"SPADE_MODELS_DIR": str(models), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-m", "spade", "run", "--config", str(tmp_path / "41.yaml"), "--run-dir",
                           str(tmp_path / "run"), "--iterations", "1"], env={**__import__("os").environ, **env},
                          capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-2000:]
    from spade.store import RunStore

    with RunStore(tmp_path / "run", read_only=True) as store:
        assert store.last_iteration() == 0
        models_used = {m for (m,) in store.query("SELECT DISTINCT model FROM candidates")}
        assert models_used == {"embedded:qwen2.5-coder-7b:" + model_files.resolve_dtype("auto")}
        update = store.query("SELECT json FROM updates")
        assert update and '"method": "grpo"' in update[0][0]
