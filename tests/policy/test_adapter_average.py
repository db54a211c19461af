"""average_adapters: the mean of several saved LoRA updates, held exactly as one adapter of K times the rank."""

import copy

import pytest
import torch

from spade.errors import TrainingError
from spade.policy.weights import average_adapters


def _lora(policy, r=4):
    from peft import LoraConfig, get_peft_model

    return get_peft_model(copy.deepcopy(policy.model), LoraConfig(r=r, lora_alpha=8, target_modules=["q_proj",
                                                                                                     "v_proj"]))


def _randomise(model, seed):
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in model.modules():
            if hasattr(m, "lora_B") and len(m.lora_B):
                for part in (m.lora_A["default"], m.lora_B["default"]):
                    part.weight.copy_(torch.randn(part.weight.shape, generator=gen) * 0.05)


def test_the_average_of_two_saved_updates_is_the_mean_of_their_updates(policy, tmp_path):
    model = _lora(policy).eval()
    layer = next(m for m in model.modules() if hasattr(m, "lora_B") and len(m.lora_B))
    x = torch.randn(3, layer.get_base_layer().in_features, generator=torch.Generator().manual_seed(1))
    deltas = []
    with torch.no_grad():
        base = layer.get_base_layer()(x)
        for k, seed in enumerate((0, 1)):
            _randomise(model, seed)
            model.save_pretrained(str(tmp_path / f"a{k}"))
            deltas.append(layer(x) - base)
        assert not torch.allclose(deltas[0], deltas[1])
        assert average_adapters(model, [tmp_path / "a0", tmp_path / "a1"]) == 60  # q and v of 30 layers
        torch.testing.assert_close(layer(x) - base, (deltas[0] + deltas[1]) / 2)
        assert layer.lora_A["default"].weight.shape[0] == 8 and layer.r["default"] == 4
        # the static sampler sees the change (fingerprint) and reads the averaged update, rank 8 per projection
        from spade.policy.live_weights import fingerprint, snapshot

        before = fingerprint(model)
        assert snapshot(model).layers[0].qkv.lora_a.shape[0] == 16  # q and v, 8 each
        # one adapter averaged alone is that adapter
        average_adapters(model, [tmp_path / "a1"])
        assert fingerprint(model) != before
        torch.testing.assert_close(layer(x) - base, deltas[1])


def test_no_adapter_or_one_of_another_rank_is_refused(policy, tmp_path):
    with pytest.raises(TrainingError, match="no LoRA adapter"):
        average_adapters(policy.model, [tmp_path])
    other = _lora(policy, r=2)
    other.save_pretrained(str(tmp_path / "r2"))
    with pytest.raises(TrainingError, match="does not fit"):
        average_adapters(_lora(policy), [tmp_path / "r2"])
    with pytest.raises(TrainingError, match="no adapters"):
        average_adapters(_lora(policy), [])
