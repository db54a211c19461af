"""The static decoder against transformers' own forward: same greedy tokens in float32, close logits in bfloat16,
exact repeats for a seed, and logits that follow the weights after an optimizer step or an adapter load."""

import copy

import torch

from spade.policy.static_decode import StaticDecoder, _pick
from spade.policy.stops import closed_after_code


def _reference_greedy(tok, model, text, max_new):
    enc = tok([text], return_tensors="pt", add_special_tokens=False)
    with torch.inference_mode():
        out = model.generate(**enc, max_new_tokens=max_new, do_sample=False, pad_token_id=tok.pad_token_id,
                             eos_token_id=tok.eos_token_id)
    ids = out[0, enc["input_ids"].shape[1]:].tolist()
    return ids[: ids.index(tok.eos_token_id) + 1] if tok.eos_token_id in ids else ids


def _reference_logits(tok, model, texts):
    enc = tok(texts, return_tensors="pt", padding=True, add_special_tokens=False)
    with torch.inference_mode():
        return model(**enc).logits[:, -1].float()


def _texts(policy, easy_tasks):
    return [policy.prompt_text(easy_tasks[0], 0), policy.prompt_text(easy_tasks[1], 1)]


SHORT = ["def add(a, b):\n    return", "# Reverse a string in Python\ndef rev(s):"]  # unequal lengths: padded


def test_greedy_tokens_match_unbatched_generate_for_prompts_of_different_lengths(policy, easy_tasks):
    texts = [policy.prompt_text(easy_tasks[0], 0), policy.prompt_text(easy_tasks[1], 1),
             policy.prompt_text(easy_tasks[0], 0)]
    assert len({len(policy.tokenizer(t)["input_ids"]) for t in texts}) > 1  # so the batch is really padded
    never_stop = StaticDecoder(policy.model, policy.tokenizer, lambda text: False)
    got = never_stop.generate(texts, max_new_tokens=16, temperature=0.0, top_p=1.0, seed=0)
    for text, (decoded, count) in zip(texts, got):
        want = _reference_greedy(policy.tokenizer, policy.model, text, 16)
        assert count == len(want)
        assert decoded == policy.tokenizer.decode(want, skip_special_tokens=True)
    assert got[0] == got[2]


def test_rows_that_end_early_leave_the_batch_without_changing_the_others(policy, easy_tasks):
    # Rows end at different steps (code block closed), so the cache is compacted mid-run; each row must still
    # equal its own run alone.
    texts = [policy.prompt_text(t, v) for t in easy_tasks for v in range(3)]
    decoder = StaticDecoder(policy.model, policy.tokenizer, closed_after_code)
    batched = decoder.generate(texts, max_new_tokens=40, temperature=0.0, top_p=1.0, seed=0)
    assert len({count for _, count in batched}) > 1
    for text, row in zip(texts, batched):
        assert decoder.generate([text], max_new_tokens=40, temperature=0.0, top_p=1.0, seed=0)[0] == row


def test_same_seed_repeats_exactly_and_another_seed_differs(policy, easy_tasks):
    texts = _texts(policy, easy_tasks) * 3
    decoder = StaticDecoder(policy.model, policy.tokenizer, closed_after_code)
    a = decoder.generate(texts, max_new_tokens=24, temperature=1.0, top_p=0.95, seed=7)
    assert a == decoder.generate(texts, max_new_tokens=24, temperature=1.0, top_p=0.95, seed=7)
    assert a != decoder.generate(texts, max_new_tokens=24, temperature=1.0, top_p=0.95, seed=8)


def test_bfloat16_logits_stay_close_to_the_reference_forward(policy, easy_tasks):
    model = copy.deepcopy(policy.model).to(torch.bfloat16)
    texts = _texts(policy, easy_tasks)
    ours = StaticDecoder(model, policy.tokenizer, closed_after_code).last_logits(texts)
    want = _reference_logits(policy.tokenizer, model, texts)
    assert torch.equal(ours.argmax(-1), want.argmax(-1))
    # bf16 keeps ~3 significant digits; logits here span ~±30, and the two forwards round in different places.
    assert (ours - want).abs().max() < 0.75


def test_logits_follow_the_weights_after_an_optimizer_step(policy, easy_tasks):
    model = copy.deepcopy(policy.model)
    texts = SHORT
    decoder = StaticDecoder(model, policy.tokenizer, closed_after_code)
    before = decoder.last_logits(texts)
    torch.testing.assert_close(before, _reference_logits(policy.tokenizer, model, texts), atol=2e-3, rtol=1e-4)
    _train_step(model, policy.tokenizer, texts, [p for p in model.parameters()])
    after = decoder.last_logits(texts)
    assert (after - before).abs().max() > 0.1  # the step moved the logits ...
    torch.testing.assert_close(after, _reference_logits(policy.tokenizer, model, texts), atol=2e-3, rtol=1e-4)
    assert decoder.refreshes == 2  # ... and the decoder re-read the weights once, not on every call
    decoder.last_logits(texts)
    assert decoder.refreshes == 2


def test_lora_logits_follow_an_optimizer_step_and_an_adapter_load(policy, easy_tasks, tmp_path):
    from peft import LoraConfig, get_peft_model, load_peft_weights, set_peft_model_state_dict

    targets = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
    model = get_peft_model(copy.deepcopy(policy.model), LoraConfig(r=4, lora_alpha=8, target_modules=targets))
    model.eval()
    texts = SHORT
    decoder = StaticDecoder(model, policy.tokenizer, closed_after_code)
    start = decoder.last_logits(texts)
    # A fresh adapter (B = 0) adds nothing: the snapshot leaves it out and samples the bare weights' logits.
    assert all(layer.qkv.lora_a is None and layer.down.lora_a is None for layer in decoder.weights().layers)
    torch.testing.assert_close(start, StaticDecoder(policy.model, policy.tokenizer).last_logits(texts), atol=0, rtol=0)
    _train_step(model, policy.tokenizer, texts, [p for p in model.parameters() if p.requires_grad])
    trained = decoder.last_logits(texts)
    assert all(layer.qkv.lora_a is not None for layer in decoder.weights().layers)
    assert (trained - start).abs().max() > 0.1
    torch.testing.assert_close(trained, _reference_logits(policy.tokenizer, model, texts), atol=2e-3, rtol=1e-4)
    model.save_pretrained(str(tmp_path))
    _train_step(model, policy.tokenizer, texts, [p for p in model.parameters() if p.requires_grad])
    assert (decoder.last_logits(texts) - trained).abs().max() > 0.1
    set_peft_model_state_dict(model, load_peft_weights(str(tmp_path)))  # what EmbeddedPolicy.load_adapter does
    torch.testing.assert_close(decoder.last_logits(texts), trained, atol=1e-4, rtol=1e-5)


def _train_step(model, tok, texts, params):
    optimizer = torch.optim.AdamW(params, lr=1e-2)
    enc = tok(texts, return_tensors="pt", padding=True, add_special_tokens=False)
    model.train()
    loss = model(**enc, labels=enc["input_ids"]).loss
    loss.backward()
    optimizer.step()
    model.eval()


def test_nucleus_keeps_the_top_token_and_drops_the_tail():
    logits = torch.tensor([[5.0, 4.0, -20.0, -20.0]] * 200)
    assert set(_pick(logits, 1.0, 0.5, torch.Generator().manual_seed(0)).tolist()) == {0}
    assert set(_pick(logits, 1.0, 0.99, torch.Generator().manual_seed(0)).tolist()) == {0, 1}


def test_a_nucleus_wider_than_the_candidates_is_drawn_from_the_whole_of_it():
    logits = torch.full((400, 1000), -30.0)
    logits[:, :500] = 0.0  # 500 equally likely tokens: the nucleus reaches far past the first 64
    picks = _pick(logits, 1.0, 0.9, torch.Generator().manual_seed(0))
    assert picks.max() < 500
    assert len(set(picks.tolist())) > 200


def test_rotation_with_the_signed_sin_table_equals_transformers_rotate_half_bit_for_bit():
    from types import SimpleNamespace

    from transformers.models.llama.modeling_llama import rotate_half

    from spade.policy.static_decode import _rope_table, _rotate

    w = SimpleNamespace(rope_theta=10000.0, head_dim=64, dtype=torch.bfloat16)
    cos, signed_sin = _rope_table(w, 300)
    inv_freq = 1.0 / (10000.0 ** (torch.arange(0, 64, 2, dtype=torch.int64).float() / 64))
    emb = torch.arange(300, dtype=torch.float32)[:, None] * inv_freq[None, :]
    sin = torch.cat((emb, emb), dim=-1).sin().to(torch.bfloat16)
    x = torch.randn(5, 12, 300, 64, generator=torch.Generator().manual_seed(0)).to(torch.bfloat16)
    assert torch.equal(_rotate(x, cos, signed_sin), x * cos + rotate_half(x) * sin)
