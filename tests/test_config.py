import re
from pathlib import Path

import pytest
import yaml

from spade.config import SpadeConfig, load_config
from spade.errors import ConfigError

ROOT = Path(__file__).resolve().parent.parent


def test_default_yaml_equals_the_model_defaults():
    on_disk = yaml.safe_load((ROOT / "configs" / "default.yaml").read_text())
    assert on_disk == SpadeConfig().model_dump(mode="json")


def test_tiny_yaml_loads():
    cfg = load_config(ROOT / "configs" / "tiny.yaml")
    assert cfg.run.iterations <= 5


def test_efficacy_yaml_loads_with_a_controller_that_acts_every_iteration():
    cfg = load_config(ROOT / "configs" / "efficacy.yaml")
    assert cfg.evolution.coevolve_every <= cfg.generation.tasks_per_iteration and cfg.evolution.patience == 1


def test_the_reference_config_is_accepted_as_is(tmp_path):
    # docs/method.md#the-reference-configuration, verbatim keys and values (YAML reads `network: off` as False).
    (tmp_path / "c.yaml").write_text(
        "executor:\n  mode: docker\n  image: python:3.11\n  timeout: 5\n  memory_limit: 512m\n  network: off\n"
        "evolution:\n  difficulty_low: 0.2\n  difficulty_high: 0.9\n  coevolve_every: 20\n  replay_ratio: 0.3\n"
        "training:\n  batch_size: 64\n  lr: 1e-5\n"
    )
    cfg = load_config(tmp_path / "c.yaml")
    assert cfg.executor.network == "off" and cfg.executor.mode == "docker"
    assert cfg.executor.memory_bytes == 512 << 20
    assert cfg.training.lr == 1e-5


@pytest.mark.parametrize(
    "text, expected",
    [
        ("executor:\n  timeout: -1\n", ["executor.timeout", "-1", "> 0"]),
        ("evolution:\n  replay_ratio: 1.5\n", ["evolution.replay_ratio", "1.5", "≤ 1"]),
        ("sampling:\n  sampling_n: eight\n", ["sampling.sampling_n", "eight"]),
        ("executor:\n  timout: 5\n", ["executor.timout", "unknown key", "timeout"]),
        ("bogus: 1\n", ["bogus", "unknown key", "executor"]),
        ("executor:\n  memory_limit: lots\n", ["executor.memory_limit", "lots", "512m"]),
        ("evolution:\n  difficulty_low: 0.9\n  difficulty_high: 0.2\n", ["difficulty_low", "difficulty_high"]),
        ("executor:\n  isolation: paranoid\n", ["executor.isolation", "paranoid", "strict"]),
        ("training:\n  kl_beta: -1\n", ["training.kl_beta = -1:", "≥ 0", "or 'auto'"]),
        ("sampling:\n  batch_size: lots\n", ["sampling.batch_size = 'lots':", "'auto'"]),
        ("- a\n- b\n", ["mapping"]),
        ("executor: [\n", ["not valid YAML"]),
    ],
)
def test_bad_config_is_refused_in_one_line_naming_key_and_value(tmp_path, text, expected):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert "\n" not in message and "constrained" not in message and "more)" not in message
    for part in expected:
        assert part in message


def test_missing_config_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "nope.yaml")


def test_dotted_overrides_apply_and_validate():
    assert load_config(None, {"run.iterations": 7}).run.iterations == 7
    with pytest.raises(ConfigError, match="run.iterations"):
        load_config(None, {"run.iterations": -3})


@pytest.mark.parametrize(
    "content, expected",
    [
        (b"run: " + b"[" * 100_000 + b"]" * 100_000 + b"\n", ["nested deeper than YAML can read"]),
        (b"run:\n  seed: 1  # caf\xe9\n", [":2 is not UTF-8", "0xe9", "iconv"]),
        (b"run:\n  seed: " + b"9" * 5000 + b"\n", ["4300 digits", "smaller number"]),
        (b"run: [\n", [":2 is not valid YAML", "expected the node content"]),
        (b"run: !!python/object:os.system x\n", [":1 is not valid YAML", "constructor"]),
        (b"# " + b"x" * (1 << 20) + b"\n", ["a few KB"]),
        (b"42\n", ["mapping of sections", "int 42"]),
        (b"run:\n  seed: " + b"[" * 300 + b"]" * 300 + b"\n", ["run.seed = [[[[[[", "…"]),
    ],
)
def test_malformed_deep_huge_or_mis_encoded_yaml_is_one_line(tmp_path, content, expected):
    path = tmp_path / "bad.yaml"
    path.write_bytes(content)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert "\n" not in message and len(message) < 400, message
    assert str(path) in message
    for part in expected:
        assert part in message, message


def test_an_override_into_a_section_that_is_not_a_mapping_is_one_line(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("run: 5\n")
    with pytest.raises(ConfigError, match=r"section 'run' = 5 must be a mapping"):
        load_config(path, {"run.seed": 3})


@pytest.mark.parametrize(("overrides", "fragment"), [
    ({"training.update_method": "grpo", "training.batch_size": 6},
     "training.batch_size = 6 must be a multiple of training.grpo_generations = 4 with update_method 'grpo'"),
    ({"sampling.backend": "openai", "training.update_method": "none", "sampling.base_url": "localhost:8000"},
     "sampling.base_url = 'localhost:8000' must be an http(s) URL"),
])
def test_rules_of_one_backend_are_checked_when_the_config_loads(overrides, fragment):
    with pytest.raises(ConfigError, match=re.escape(fragment)):
        load_config(None, overrides)
    rest = {k: v for k, v in overrides.items() if k not in ("training.update_method", "sampling.backend")}
    load_config(None, rest)  # the same values pass where that backend is not chosen


def test_a_packaged_config_loads_by_name_the_same_as_its_file():
    from spade.config import CONFIGS_DIR, config_names

    assert {"default", "tiny", "selfplay", "efficacy"} <= set(config_names())
    assert load_config("tiny") == load_config(ROOT / "configs" / "tiny.yaml")
    assert (ROOT / "configs").resolve() == CONFIGS_DIR.resolve()  # one source: the checkout's configs/ is the package's


def test_an_unknown_config_name_is_one_line_listing_the_names():
    with pytest.raises(ConfigError) as info:
        load_config("tinny")
    message = str(info.value)
    assert "'tinny'" in message and "default, efficacy, selfplay, tiny" in message and "\n" not in message


def test_an_existing_file_wins_over_a_packaged_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tiny").write_text("run: {iterations: 9}\n")
    assert load_config("tiny").run.iterations == 9


def test_an_error_in_an_override_names_the_override_not_the_file(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("sampling: {temperature: 0.2}\n")
    with pytest.raises(ConfigError) as info:
        load_config(path, {"sampling.temperature": 9}, flag="--set")
    assert str(info.value).startswith("--set: sampling.temperature = 9") and str(path) not in str(info.value)
    path.write_text("sampling: {temperature: 9}\n")  # the file's own error still names the file
    with pytest.raises(ConfigError, match=re.escape(f"{path}: sampling.temperature = 9")):
        load_config(path, {"sampling.sampling_n": 2}, flag="--set")
    with pytest.raises(ConfigError, match=re.escape("--set: training.batch_size = 6 must be a multiple")):
        load_config(None, {"training.update_method": "grpo", "training.batch_size": 6}, flag="--set")
