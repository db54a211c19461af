"""The embedded decoder against transformers' own greedy `generate`: shared prefill, left padding, position ids
and row retirement must not change a single greedy token."""

import torch

from spade.policy.decode import Decoder, _pick
from spade.policy.stops import closed_after_code


def _reference_greedy(policy, text, max_new):
    tok, model = policy.tokenizer, policy.model
    enc = tok([text], return_tensors="pt", add_special_tokens=False)
    with torch.inference_mode():
        out = model.generate(**enc, max_new_tokens=max_new, do_sample=False, pad_token_id=tok.pad_token_id,
                             eos_token_id=tok.eos_token_id)
    ids = out[0, enc["input_ids"].shape[1]:].tolist()
    return ids[: ids.index(tok.eos_token_id) + 1] if tok.eos_token_id in ids else ids


def test_greedy_tokens_match_unbatched_generate_for_prompts_of_different_lengths(policy, easy_tasks):
    texts = [policy.prompt_text(easy_tasks[0], 0), policy.prompt_text(easy_tasks[1], 1), policy.prompt_text(easy_tasks[0], 0)]
    assert len({len(policy.tokenizer(t)["input_ids"]) for t in texts}) > 1  # so the batch is really padded
    never_stop = Decoder(policy.model, policy.tokenizer, lambda text: False)
    got = never_stop.generate(texts, max_new_tokens=16, temperature=0.0, top_p=1.0, seed=0)
    for text, (decoded, count) in zip(texts, got):
        want = _reference_greedy(policy, text, 16)
        assert count == len(want)
        assert decoded == policy.tokenizer.decode(want, skip_special_tokens=True)
    assert got[0] == got[2]  # rows sharing a prompt share its prefill and, greedily, its answer


def test_a_row_stops_when_its_code_block_closes_and_others_go_on(policy, easy_tasks):
    text = policy.prompt_text(easy_tasks[0], 0)
    free = Decoder(policy.model, policy.tokenizer, lambda t: False).generate(
        [text], max_new_tokens=48, temperature=0.0, top_p=1.0, seed=0)[0]
    fenced = Decoder(policy.model, policy.tokenizer, closed_after_code).generate(
        [text], max_new_tokens=48, temperature=0.0, top_p=1.0, seed=0)[0]
    assert fenced[1] <= free[1]
    assert free[0].startswith(fenced[0])
    if closed_after_code(free[0]):  # the model closed its block: the fenced run ends right at that token
        assert fenced[0].rstrip().endswith("```") and fenced[1] < free[1]


def test_nucleus_keeps_the_top_token_and_drops_the_tail():
    logits = torch.tensor([[5.0, 4.0, -20.0, -20.0]] * 200)
    gen = torch.Generator().manual_seed(0)
    picks = _pick(logits, 1.0, 0.5, gen)
    assert set(picks.tolist()) == {0}  # the top token alone holds more than half the mass
    picks = _pick(logits, 1.0, 0.99, torch.Generator().manual_seed(0))
    assert set(picks.tolist()) == {0, 1}  # the two heavy tokens, never the tail
