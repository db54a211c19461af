"""scale_adapter: a LoRA checkpoint's update scaled in place, from the base model (0) to the adapter as trained (1)."""

import copy

import pytest
import torch

from spade.errors import TrainingError
from spade.policy.weights import scale_adapter


def _adapted(policy):
    from peft import LoraConfig, get_peft_model

    model = get_peft_model(copy.deepcopy(policy.model), LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj",
                                                                                                          "v_proj"]))
    gen = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for m in model.modules():
            if hasattr(m, "lora_B") and len(m.lora_B):
                m.lora_B["default"].weight.copy_(torch.randn(m.lora_B["default"].weight.shape, generator=gen) * 0.05)
    return model.eval()


def test_each_layer_update_scales_exactly_and_zero_is_the_base(policy):
    model = _adapted(policy)
    layer = next(m for m in model.modules() if hasattr(m, "lora_B") and len(m.lora_B))
    x = torch.randn(3, layer.get_base_layer().in_features, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        base = layer.get_base_layer()(x)
        full = layer(x) - base
        assert scale_adapter(model, 0.5) == 60  # q and v of each of the 30 decoder layers
        half = layer(x) - base
        torch.testing.assert_close(half, full * 0.5)
        scale_adapter(model, 0.0)
        ids = torch.tensor([[1, 2, 3, 4]])
        torch.testing.assert_close(model(ids).logits, policy.model(ids).logits)


def test_a_model_without_adapter_or_a_scale_outside_zero_to_one_is_refused(policy):
    with pytest.raises(TrainingError, match="no LoRA adapter"):
        scale_adapter(policy.model, 0.5)
    with pytest.raises(TrainingError, match="outside 0..1"):
        scale_adapter(_adapted(policy), 1.5)
