"""A batched decoder for the embedded policy that does less work than a generic `generate`.

In: prompt texts (repeats allowed), a causal LM, its tokenizer, a stop rule per text (spade.policy.stops). Out: (text, new token count) per
prompt, deterministic for a seed. Three savings, each measured on this 2-core host (bench/sampling.py):
- the prefill runs once per distinct prompt and its KV cache is copied to the rows that share it (n samples of
  one task share one prompt), and only the last position's logits are computed;
- a row leaves the batch as soon as it ends (end of turn, or its stop rule says its answer is complete), so later steps run on
  the rows still writing instead of carrying finished rows to max_new_tokens;
- a stop rule decodes a row only when its newest token holds the rule's trigger, not the whole batch every step.
Sampling follows the usual definition: logits / temperature, then nucleus (top-p) filtering; temperature 0
is greedy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from spade.policy.stops import DEFAULT_RULE, StopRule, StopTest, TriggerTokens, as_rule


class Decoder:
    """Holds per-tokenizer constants (the ids holding each stop rule's trigger) across calls."""

    def __init__(self, model: Any, tokenizer: Any, stop: StopRule | StopTest = DEFAULT_RULE) -> None:
        self.model = model
        self.tok = tokenizer
        self.rule = as_rule(stop)  # for rows given no rule of their own
        self.eos = int(tokenizer.eos_token_id)
        self.triggers = TriggerTokens(tokenizer)

    def generate(self, texts: Sequence[str], *, max_new_tokens: int, temperature: float, top_p: float,
                 seed: int, stops: Sequence[StopRule] | None = None) -> list[tuple[str, int]]:
        """(text, new token count) per text; `stops`: each text's stop rule (default: the decoder's own)."""
        import torch
        from transformers import DynamicCache

        from spade.policy.device import model_device

        device = model_device(self.model)  # the CPU, or the GPU the model was placed on (training.device)
        distinct = list(dict.fromkeys(texts))
        source = torch.tensor(_index_of(distinct, texts), device=device)
        enc = self.tok(distinct, return_tensors="pt", padding=True, add_special_tokens=False).to(device)
        mask = enc["attention_mask"]
        positions = (mask.cumsum(-1) - 1).clamp(min=0)
        cache = DynamicCache()
        gen = torch.Generator(device=device).manual_seed(seed)
        generated: list[list[int]] = [[] for _ in texts]
        rules = list(stops) if stops is not None else [self.rule] * len(texts)
        if len(rules) != len(texts):
            raise ValueError(f"{len(rules)} stop rules for {len(texts)} texts")
        with torch.inference_mode():
            out = self.model(input_ids=enc["input_ids"], attention_mask=mask, position_ids=positions,
                             past_key_values=cache, use_cache=True, logits_to_keep=1)
            logits = out.logits[:, -1, :][source]
            cache.batch_select_indices(source)
            mask = mask[source]
            next_pos = positions[source, -1] + 1
            rows = list(range(len(texts)))  # batch position -> index into texts
            for step in range(max_new_tokens):
                chosen = _pick(logits, temperature, top_p, gen)
                keep = []
                for j, token in enumerate(chosen.tolist()):
                    row = generated[rows[j]]
                    row.append(token)
                    if not self._ends(row, token, rules[rows[j]]):
                        keep.append(j)
                if not keep or step == max_new_tokens - 1:
                    break
                if len(keep) < len(rows):
                    index = torch.tensor(keep, device=device)
                    cache.batch_select_indices(index)
                    mask, next_pos, chosen = mask[index], next_pos[index], chosen[index]
                    rows = [rows[j] for j in keep]
                mask = torch.cat([mask, mask.new_ones((len(rows), 1))], dim=1)
                out = self.model(input_ids=chosen[:, None], attention_mask=mask, position_ids=next_pos[:, None],
                                 past_key_values=cache, use_cache=True)
                logits = out.logits[:, -1, :]
                next_pos = next_pos + 1
        return [(self.tok.decode(ids, skip_special_tokens=True), len(ids)) for ids in generated]

    def _ends(self, row: list[int], token: int, rule: StopRule) -> bool:
        if token == self.eos:
            return True
        return token in self.triggers.ids(rule.trigger) and rule.test(self.tok.decode(row, skip_special_tokens=True))


def _index_of(distinct: list[str], texts: Sequence[str]) -> list[int]:
    where = {t: i for i, t in enumerate(distinct)}
    return [where[t] for t in texts]


def _pick(logits: Any, temperature: float, top_p: float, gen: Any) -> Any:
    """One token per row: argmax at temperature 0, else a draw from the top-p nucleus of softmax(logits / T)."""
    import torch

    if temperature == 0:
        return logits.argmax(dim=-1)
    probs = torch.softmax(logits.float() / temperature, dim=-1)
    if top_p < 1.0:
        sorted_probs, order = probs.sort(dim=-1, descending=True)
        before = sorted_probs.cumsum(dim=-1) - sorted_probs  # mass of the tokens ranked above each one
        sorted_probs = sorted_probs.masked_fill(before >= top_p, 0.0)  # the top token always survives
        draw = torch.multinomial(sorted_probs, 1, generator=gen)
        return order.gather(-1, draw).squeeze(-1)
    return torch.multinomial(probs, 1, generator=gen).squeeze(-1)
