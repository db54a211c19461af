"""The embedded policy's sampler: a hand-written Llama forward over the live weights with a preallocated KV cache.

In: prompt texts (repeats allowed), the live model, its tokenizer, a stop rule per text (spade.policy.stops). Out: (text, new token count) per
prompt, deterministic for a seed. Same contract and sampling rule as `spade.policy.decode.Decoder` (the previous
decoder, kept as `sampling.engine: hf`); where the time goes differently (bench/sampling.py measures both):
- no per-step module dispatch, no growing cache: one KV tensor is allocated per call and written in place, and
  q|k|v and gate|up run as one matrix product each (`spade.policy.live_weights`);
- decode attention is two batched products per layer over the whole cache with grouped query heads (measured
  ~15x faster than SDPA's CPU kernel for one query), not a padded SDPA call;
- the prefill runs once per distinct prompt, in groups of similar length (little padding), the LM head only on
  the last position;
- nucleus sampling looks at the top 64 tokens and sorts the whole vocabulary only for rows whose nucleus is
  wider; one uniform per row per step draws the token (inverse CDF), so no full-vocabulary random numbers;
- finished rows are dropped from the batch when a quarter of it has finished (not every step: compacting the
  cache copies it).
The weights are re-read from the model (`live_weights.snapshot`) whenever their fingerprint changed, so sampling
always uses the weights the trainer just wrote.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from spade.policy.live_weights import LiveWeights, Projection, fingerprint, snapshot
from spade.policy.packing import linear
from spade.policy.stops import DEFAULT_RULE, StopRule, StopTest, TriggerTokens, as_rule

NUCLEUS_CANDIDATES = 64
PREFILL_SPREAD = 12


class StaticDecoder:
    """Holds the tokenizer constants and the current weight snapshot across calls."""

    def __init__(self, model: Any, tokenizer: Any, stop: StopRule | StopTest = DEFAULT_RULE) -> None:
        self.model = model
        self.tok = tokenizer
        self.rule = as_rule(stop)  # for rows given no rule of their own
        self.eos = int(tokenizer.eos_token_id)
        self.triggers = TriggerTokens(tokenizer)
        self._weights: LiveWeights | None = None
        self._fingerprint: tuple | None = None
        self.refreshes = 0

    def weights(self) -> LiveWeights:
        """The snapshot of the model's current weights, rebuilt if any parameter changed since the last one."""
        now = fingerprint(self.model)
        if self._weights is None or now != self._fingerprint:
            self._weights = snapshot(self.model, self._weights)
            self._fingerprint = now
            self.refreshes += 1
        return self._weights

    def last_logits(self, texts: Sequence[str]) -> Any:
        """float32 logits of the next token after each text (prefill only), with the current weights."""
        import torch

        w = self.weights()
        enc = self.tok(list(texts), return_tensors="pt", padding=True, add_special_tokens=False)
        ids, mask = enc["input_ids"], enc["attention_mask"].bool()
        with torch.inference_mode():
            cache = torch.empty(len(w.layers), 2, len(texts), w.kv_heads, ids.shape[1], w.head_dim, dtype=w.dtype)
            every = torch.arange(len(texts))
            logits = _prefill(w, ids, mask, _rope_table(w, ids.shape[1]), cache, every, every, 0)
            return logits

    def generate(self, texts: Sequence[str], *, max_new_tokens: int, temperature: float, top_p: float,
                 seed: int, stops: Sequence[StopRule] | None = None) -> list[tuple[str, int]]:
        """(text, new token count) per text; `stops`: each text's stop rule (default: the decoder's own)."""
        import torch

        w = self.weights()
        distinct = list(dict.fromkeys(texts))
        where = {t: i for i, t in enumerate(distinct)}
        source = torch.tensor([where[t] for t in texts])
        enc = self.tok(distinct, return_tensors="pt", padding=True, add_special_tokens=False)
        ids, mask = enc["input_ids"], enc["attention_mask"].bool()
        width = ids.shape[1]
        rope = _rope_table(w, width + max_new_tokens)
        gen = torch.Generator().manual_seed(seed)
        generated: list[list[int]] = [[] for _ in texts]
        rules = list(stops) if stops is not None else [self.rule] * len(texts)
        if len(rules) != len(texts):
            raise ValueError(f"{len(rules)} stop rules for {len(texts)} texts")
        with torch.inference_mode():
            # Zeroed, not empty: decode attention reads every column (masked ones too) and 0 * NaN would leak.
            cache = torch.zeros(len(w.layers), 2, len(texts), w.kv_heads, width + max_new_tokens, w.head_dim,
                                dtype=w.dtype)
            logits = torch.empty(len(texts), w.head.weight.shape[0])
            for group in _length_groups(mask.sum(dim=1).tolist()):
                members = torch.isin(source, torch.tensor(group)).nonzero().flatten()  # rows of these prompts
                local = {g: k for k, g in enumerate(group)}
                prompt_of = torch.tensor([local[int(source[r])] for r in members])
                start = width - int(mask[group].sum(dim=1).max())
                out = _prefill(w, ids[group, start:], mask[group, start:], rope, cache, members, prompt_of, start)
                logits[members] = out[prompt_of]
            bias = torch.full((len(texts), width + max_new_tokens), float("-inf"))
            bias[:, :width] = torch.where(mask[source], 0.0, float("-inf"))  # columns not yet written stay -inf
            positions = mask.sum(dim=1)[source]  # the next token's position in each row
            rows = list(range(len(texts)))  # batch position -> index into texts
            alive = [True] * len(rows)
            for step in range(max_new_tokens):
                chosen = _pick(logits, temperature, top_p, gen)
                for j, token in enumerate(chosen.tolist()):
                    if alive[j]:
                        row = generated[rows[j]]
                        row.append(token)
                        alive[j] = not self._ends(row, token, rules[rows[j]])
                left = sum(alive)
                if not left or step == max_new_tokens - 1:
                    break
                if left <= 3 * len(rows) // 4:  # compact: drop finished rows from the cache and the batch
                    index = torch.tensor([j for j in range(len(rows)) if alive[j]])
                    cache = cache.index_select(2, index)
                    bias, positions, chosen = bias[index], positions[index], chosen[index]
                    rows = [rows[j] for j in index.tolist()]
                    alive = [True] * len(rows)
                column = width + step  # finished rows not yet dropped keep running on their last token, unread
                bias[:, column] = 0.0
                logits = _decode_step(w, chosen, positions, column, rope, cache, bias)
                positions = positions + 1
        return [(self.tok.decode(ids, skip_special_tokens=True), len(ids)) for ids in generated]

    def _ends(self, row: list[int], token: int, rule: StopRule) -> bool:
        if token == self.eos:
            return True
        return token in self.triggers.ids(rule.trigger) and rule.test(self.tok.decode(row, skip_special_tokens=True))


def _rope_table(w: LiveWeights, length: int) -> tuple[Any, Any]:
    """cos and signed sin per position [length, head_dim], computed in float32 as transformers does, then cast;
    the sin's first half is negated, so that `_rotate` needs one `roll` where transformers negates and concatenates
    halves of x (the same products: -x2 * s and x2 * -s round alike)."""
    import torch

    inv_freq = 1.0 / (w.rope_theta ** (torch.arange(0, w.head_dim, 2, dtype=torch.int64).float() / w.head_dim))
    freqs = torch.arange(length, dtype=torch.float32)[:, None] * inv_freq[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    sin = emb.sin()
    half = w.head_dim // 2
    return emb.cos().to(w.dtype), torch.cat((-sin[:, :half], sin[:, half:]), dim=-1).to(w.dtype)


def _rotate(x: Any, cos: Any, signed_sin: Any) -> Any:
    """Rotary embedding of x [..., head_dim]: x * cos + (x2, x1) * (-sin, sin), (x1, x2) being x's halves."""
    return x * cos + x.roll(x.shape[-1] // 2, -1) * signed_sin


def _norm(x: Any, weight: Any, eps: float) -> Any:
    import torch

    f = x.float()
    f = f * torch.rsqrt(f.pow(2).mean(-1, keepdim=True) + eps)
    return weight * f.to(x.dtype)


def _project(x: Any, p: Projection) -> Any:
    import torch

    y = linear(x, p.weight, p.packed)
    if p.lora_a is None:
        return y
    # As peft: the adapter runs in its own dtype on the input cast to it, added before rounding to the output's.
    low = torch.nn.functional.linear(x.to(p.lora_a.dtype), p.lora_a)
    return (y + torch.nn.functional.linear(low, p.lora_b)).to(x.dtype)


def _mlp(x: Any, w: LiveWeights, layer: Any) -> Any:
    import torch

    gate, up = _project(x, layer.gate_up).split(w.intermediate, dim=-1)
    return _project(torch.nn.functional.silu(gate) * up, layer.down)


def _length_groups(lengths: list[int], spread: int = PREFILL_SPREAD) -> list[list[int]]:
    """Prompt indices grouped by token length (each group within `spread` tokens), so that a group's prefill pads
    little: padding to the batch's longest prompt wasted ~12% of the prefill on the loop's prompts."""
    groups: list[list[int]] = []
    for i in sorted(range(len(lengths)), key=lambda i: (lengths[i], i)):
        if groups and lengths[i] - lengths[groups[-1][0]] <= spread:
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups


def _prefill(w: LiveWeights, ids: Any, mask: Any, rope: tuple[Any, Any], cache: Any, rows: Any, source: Any,
             start: int) -> Any:
    """Run left-padded prompts, write their keys/values to cache `rows` (row r takes prompt source[r]) at
    columns start.., and return the float32 logits of each prompt's last position [prompts, vocab]."""
    import torch

    n, width = ids.shape
    positions = (mask.long().cumsum(-1) - 1).clamp(min=0)
    cos, signed_sin = rope[0][positions][:, None], rope[1][positions][:, None]
    causal = torch.ones(width, width, dtype=torch.bool).tril()
    # A padding query attends to itself only, so no softmax row is empty; real queries never see padding.
    allowed = (causal & mask[:, None, :]) | torch.eye(width, dtype=torch.bool)
    allowed = allowed[:, None]
    x = w.embed[ids]
    q_size, kv_size = w.heads * w.head_dim, w.kv_heads * w.head_dim
    for i, layer in enumerate(w.layers):
        h = _project(_norm(x, layer.in_norm, w.eps), layer.qkv)
        q, k, v = h.split((q_size, kv_size, kv_size), dim=-1)
        q = _rotate(q.view(n, width, w.heads, w.head_dim).transpose(1, 2), cos, signed_sin)
        k = _rotate(k.view(n, width, w.kv_heads, w.head_dim).transpose(1, 2), cos, signed_sin)
        v = v.view(n, width, w.kv_heads, w.head_dim).transpose(1, 2)
        cache[i, 0, rows, :, start:start + width] = k[source]
        cache[i, 1, rows, :, start:start + width] = v[source]
        a = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=allowed, enable_gqa=True)
        x = x + _project(a.transpose(1, 2).reshape(n, width, q_size), layer.o)
        x = x + _mlp(_norm(x, layer.post_norm, w.eps), w, layer)
    last = _norm(x[:, -1], w.norm, w.eps)
    return _project(last, w.head).float()


def _decode_step(w: LiveWeights, tokens: Any, positions: Any, column: int, rope: tuple[Any, Any], cache: Any,
                 bias: Any) -> Any:
    """One new token per row at cache column `column`; returns float32 logits [rows, vocab]. `bias` [rows,
    cache length] is 0 where a row may attend (its prompt and the columns written so far) and -inf elsewhere.
    Few operators a layer (a step at a few rows is mostly their fixed cost): views of the cache taken once a step,
    q and k rotated together, and the score scale folded into q where it is a power of two (exact: it scales each
    product, the sum and its rounding alike), added to the bias in float32 without a separate cast."""
    import torch

    b = tokens.shape[0]
    group = w.heads // w.kv_heads
    q_size, kv_size = w.heads * w.head_dim, w.kv_heads * w.head_dim
    cos, signed_sin = rope[0][positions][:, None], rope[1][positions][:, None]
    scale = w.head_dim ** -0.5
    folded = math.frexp(scale)[0] == 0.5
    length = cache.shape[4]
    bias = bias[:, None, None, :]
    keys = cache[:, 0].view(len(w.layers), b * w.kv_heads, length, w.head_dim)
    values = cache[:, 1].view(len(w.layers), b * w.kv_heads, length, w.head_dim)
    new_keys, new_values = cache[:, 0, :, :, column], cache[:, 1, :, :, column]  # [layers, rows, kv heads, dim]
    x = w.embed[tokens]
    for i, layer in enumerate(w.layers):
        h = _project(_norm(x, layer.in_norm, w.eps), layer.qkv)
        qk = _rotate(h[:, :q_size + kv_size].view(b, w.heads + w.kv_heads, w.head_dim), cos, signed_sin)
        new_keys[i].copy_(qk[:, w.heads:])
        new_values[i].copy_(h[:, q_size + kv_size:].view(b, w.kv_heads, w.head_dim))
        q = qk[:, :w.heads] * scale if folded else qk[:, :w.heads].contiguous()
        # Over every column of the cache, masked by `bias`: slicing to the written columns makes bmm copy them
        # each step, which measured slower than reading the whole, contiguous cache.
        scores = torch.bmm(q.view(b * w.kv_heads, group, w.head_dim), keys[i].transpose(1, 2))
        scores = scores.view(b, w.kv_heads, group, length)
        scores = scores + bias if folded else scores.float() * scale + bias  # bfloat16 + float32 bias: float32
        a = torch.bmm(scores.softmax(dim=-1).to(w.dtype).view(b * w.kv_heads, group, length), values[i])
        x = x + _project(a.reshape(b, q_size), layer.o)
        x = x + _mlp(_norm(x, layer.post_norm, w.eps), w, layer)
    return _project(_norm(x, w.norm, w.eps), w.head).float()


def _pick(logits: Any, temperature: float, top_p: float, gen: Any) -> Any:
    """One token per row: argmax at temperature 0, else a draw from the top-p nucleus of softmax(logits / T)."""
    import torch

    if temperature == 0:
        return logits.argmax(dim=-1)
    probs = torch.softmax(logits / temperature, dim=-1)
    if top_p >= 1.0:
        return torch.multinomial(probs, 1, generator=gen).squeeze(-1)
    u = torch.rand(probs.shape[0], generator=gen, dtype=torch.float64)
    top, order = probs.topk(min(NUCLEUS_CANDIDATES, probs.shape[-1]), dim=-1)
    tokens = _draw(top, order, top_p, u)
    wide = (top.cumsum(dim=-1)[:, -1] < top_p).nonzero().flatten()  # the nucleus reaches past the candidates
    if wide.numel() and top.shape[-1] < probs.shape[-1]:
        p, o = probs[wide].sort(dim=-1, descending=True)
        tokens[wide] = _draw(p, o, top_p, u[wide])
    return tokens


def _draw(p: Any, order: Any, top_p: float, u: Any) -> Any:
    """Inverse-CDF draw from the nucleus of rows of probabilities sorted in descending order."""
    import torch

    before = p.cumsum(dim=-1) - p  # mass of the tokens ranked above each one; the top token always survives
    p = p.masked_fill(before >= top_p, 0.0)
    cdf = p.double().cumsum(dim=-1)
    i = torch.searchsorted(cdf, (u * cdf[:, -1])[:, None], right=True)
    i = torch.minimum(i, (p > 0).sum(dim=-1, keepdim=True) - 1)  # the kept tokens are a prefix
    return order.gather(-1, i).squeeze(-1)
