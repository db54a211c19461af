"""sampling.batch_size: a number is used as given; `auto` puts up to 64 of a call's sequences in one batch and
fewer when a quarter of the free memory cannot hold them."""

import pytest

from spade.config import SamplingConfig, load_config
from spade.errors import ConfigError
from spade.policy.batching import AUTO_MAX_ROWS, available_bytes, batch_size, row_bytes

GB = 1 << 30


def test_a_number_is_used_as_given_and_auto_takes_every_sequence_up_to_the_cap():
    assert batch_size(8, 100, 10**9, 0) == 8
    assert batch_size("auto", 24, 10**6, 8 * GB) == 24
    assert batch_size("auto", 500, 10**6, 8 * GB) == AUTO_MAX_ROWS


def test_auto_shrinks_to_what_a_quarter_of_free_memory_holds_and_never_below_one():
    assert batch_size("auto", 64, 100 * 2**20, 4 * GB) == 10  # 1 GB / 100 MB
    assert batch_size("auto", 64, 100 * 2**20, 2**20) == 1


def test_a_row_costs_more_with_a_longer_prompt_or_more_new_tokens_and_holds_its_kv_cache(policy):
    cfg = policy.model.config
    short, long_prompt, long_answer = (row_bytes(cfg, 100, 128, 2), row_bytes(cfg, 400, 128, 2),
                                       row_bytes(cfg, 100, 512, 2))
    assert short < long_prompt and short < long_answer
    kv = cfg.num_hidden_layers * 2 * cfg.num_key_value_heads * 228 * (cfg.hidden_size // cfg.num_attention_heads) * 2
    assert kv < short < 4 * kv
    assert row_bytes(cfg, 100, 128, 4) > short  # float32 rows cost more


def test_available_memory_is_a_positive_reading():
    assert 0 < available_bytes() < 1 << 50


def test_the_policy_sizes_auto_batches_from_its_own_model(policy):
    texts = ["x" * 40] * 100
    auto = type(policy)(policy.sampling.model_copy(update={"batch_size": "auto"}), policy.training)
    auto._model, auto._tokenizer = policy.model, policy.tokenizer
    assert auto.batch_size_for(texts) == AUTO_MAX_ROWS
    assert auto.batch_size_for(texts[:10]) == 10
    assert policy.batch_size_for(texts) == policy.sampling.batch_size == 8


def test_config_accepts_auto_or_a_bounded_number_and_names_the_field_otherwise(tmp_path):
    assert SamplingConfig().batch_size == "auto" and SamplingConfig(batch_size=16).batch_size == 16
    for bad in ("0", "2000", "many"):
        path = tmp_path / "c.yaml"
        path.write_text(f"sampling: {{batch_size: {bad}}}\n")
        with pytest.raises(ConfigError, match="batch_size"):
            load_config(path)
