"""Weights packed for oneDNN (spade.policy.packing): the sampler's products stay bit-identical to torch's, packings
never outlive the weights they were made from, and a LoRA update does not re-pack the frozen base weights."""

import copy

import pytest
import torch

import spade.policy.live_weights as live_weights
from spade.policy.packing import linear, pack
from spade.policy.static_decode import StaticDecoder
from spade.policy.stops import closed_after_code

SHORT = ["def add(a, b):\n    return", "# Reverse a string in Python\ndef rev(s):"]


def _bf16_weight(rows=96, cols=64):
    return torch.randn(rows, cols, generator=torch.Generator().manual_seed(1)).to(torch.bfloat16)


def test_a_packed_product_is_bit_identical_to_torchs_for_any_row_count():
    weight = _bf16_weight()
    packed = pack(weight)
    if packed is None:
        pytest.skip("oneDNN packing does not apply with this torch build or CPU")
    for shape in ((1, 64), (5, 64), (40, 64), (3, 7, 64)):
        x = torch.randn(*shape).to(torch.bfloat16)
        assert torch.equal(linear(x, weight, packed), torch.nn.functional.linear(x, weight))


def test_float32_weights_are_not_packed():
    assert pack(_bf16_weight().float()) is None


def _bf16_model(policy):
    return copy.deepcopy(policy.model).to(torch.bfloat16)


def test_packing_changes_no_bit_of_the_samplers_logits_or_tokens(policy, monkeypatch):
    model = _bf16_model(policy)
    packed = StaticDecoder(model, policy.tokenizer, closed_after_code)
    if packed.weights().head.packed is None:
        pytest.skip("oneDNN packing does not apply with this torch build or CPU")
    logits = packed.last_logits(SHORT)
    tokens = packed.generate(SHORT, max_new_tokens=12, temperature=0.8, top_p=0.95, seed=3)
    monkeypatch.setattr(live_weights, "pack", lambda weight: None)
    plain = StaticDecoder(model, policy.tokenizer, closed_after_code)
    assert plain.weights().head.packed is None
    assert torch.equal(plain.last_logits(SHORT), logits)
    assert plain.generate(SHORT, max_new_tokens=12, temperature=0.8, top_p=0.95, seed=3) == tokens


def test_a_base_weight_written_in_place_is_packed_again(policy, monkeypatch):
    model = _bf16_model(policy)
    decoder = StaticDecoder(model, policy.tokenizer, closed_after_code)
    before = decoder.last_logits(SHORT)
    with torch.no_grad():  # as a full fine-tune's optimizer step writes them
        model.model.layers[0].mlp.down_proj.weight.mul_(0.5)
        model.lm_head.weight.add_(0.01)
    after = decoder.last_logits(SHORT)
    assert (after - before).abs().max() > 0.1
    monkeypatch.setattr(live_weights, "pack", lambda weight: None)
    fresh = StaticDecoder(model, policy.tokenizer, closed_after_code)  # unpacked, read now: the truth
    assert torch.equal(after, fresh.last_logits(SHORT))


def test_a_replaced_base_weight_is_packed_again(policy, monkeypatch):
    model = _bf16_model(policy)
    decoder = StaticDecoder(model, policy.tokenizer, closed_after_code)
    before = decoder.last_logits(SHORT)
    proj = model.model.layers[2].self_attn.q_proj
    proj.weight = torch.nn.Parameter(proj.weight.detach() * 0.5)  # as loading a full checkpoint may (new storage)
    after = decoder.last_logits(SHORT)
    assert (after - before).abs().max() > 0.1
    monkeypatch.setattr(live_weights, "pack", lambda weight: None)
    assert torch.equal(after, StaticDecoder(model, policy.tokenizer, closed_after_code).last_logits(SHORT))


def test_a_lora_update_reuses_the_base_packings_and_the_logits_follow_it(policy, monkeypatch):
    from peft import LoraConfig, get_peft_model

    targets = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
    model = get_peft_model(_bf16_model(policy), LoraConfig(r=4, lora_alpha=8, target_modules=targets))
    model.eval()
    decoder = StaticDecoder(model, policy.tokenizer, closed_after_code)
    first = decoder.weights()
    if first.head.packed is None:
        pytest.skip("oneDNN packing does not apply with this torch build or CPU")
    start = decoder.last_logits(SHORT)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "lora_B" in name:
                p.add_(0.05)
    moved = decoder.last_logits(SHORT)
    second = decoder.weights()
    assert decoder.refreshes == 2
    assert (moved - start).abs().max() > 0.1
    assert second.layers[3].qkv.packed is first.layers[3].qkv.packed  # the frozen base was not re-packed
    assert second.head.packed is first.head.packed
    monkeypatch.setattr(live_weights, "pack", lambda weight: None)
    assert torch.equal(moved, StaticDecoder(model, policy.tokenizer, closed_after_code).last_logits(SHORT))
