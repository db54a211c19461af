"""The frozen bottom of a model whose adapters sit on its top layers: run once per example, kept across updates.

In: a peft model whose trainable weights all lie in decoder layers k..L-1 (`training.lora_layers` < L), and an
example's token ids. Out: the hidden states after layer k-1 (`FrozenPrefix.hidden`), then the logits of the
policy (or of the base, inside peft's `disable_adapter()`) computed from them by layers k..L-1, the final norm
and the head (`FrozenPrefix.logits`). Nothing below layer k trains and the base weights never change under LoRA, so the bottom
layers' output for one token sequence is the same in every epoch and every update: it is computed once, kept
(bounded: the oldest entries go first past `max_tokens` kept positions), and shared by the policy's forward and
the KL term's base forward. The values are those of the full forward (the same layers on the same input in the
same autocast), so the loss and its gradient are unchanged (`tests/train/test_prefix.py`).

The top is run by the model's own forward with `inputs_embeds` set to the kept states and the decoder's layer
list cut to k..L-1 for that call (positions, causal mask and rotary embeddings are the decoder's, computed from
the sequence length as for a full forward). A model that does not have that shape (no `layers` list, no final
`norm`, trainable embeddings or bottom layers) gets no prefix (`FrozenPrefix.build` returns None) and trains as
before. The kept states are dropped when the bottom's parameters change (replaced or written in place).
"""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

MAX_TOKENS = 131072  # kept positions: ~150 MB of bfloat16 states at SmolLM2-135M's width (576)


class FrozenPrefix:
    """Layers [0, k) of `model`'s decoder, frozen, with their output per token sequence kept."""

    def __init__(self, model: Any, decoder: Any, start: int, *, max_tokens: int = MAX_TOKENS) -> None:
        self.model = model
        self.decoder = decoder
        self.start = start
        self.max_tokens = max_tokens
        self.kept: OrderedDict[tuple[int, ...], Any] = OrderedDict()
        self.tokens = 0
        self.hits = 0
        self._state = self._fingerprint()

    @classmethod
    def build(cls, model: Any, *, max_tokens: int = MAX_TOKENS) -> FrozenPrefix | None:
        """The prefix of `model` (a peft model) below its first layer with trainable weights; None when there is
        none to skip (adapters on every layer, a full fine-tune, trainable embeddings) or the model is not a
        decoder with a `layers` list and a final `norm`."""
        get_base = getattr(model, "get_base_model", None)
        if get_base is None:
            return None
        decoder = getattr(get_base(), "model", None)
        layers = getattr(decoder, "layers", None)
        if layers is None or getattr(decoder, "norm", None) is None or not hasattr(decoder, "embed_tokens"):
            return None
        trains = [any(p.requires_grad for p in layer.parameters()) for layer in layers]
        start = trains.index(True) if True in trains else 0
        if start == 0 or any(p.requires_grad for p in decoder.embed_tokens.parameters()):
            return None
        return cls(model, decoder, start, max_tokens=max_tokens)

    def _bottom(self) -> list[Any]:
        return [*self.decoder.embed_tokens.parameters(),
                *(p for layer in list(self.decoder.layers)[: self.start] for p in layer.parameters())]

    def _fingerprint(self) -> tuple[int, tuple[tuple[int, int], ...]]:
        return id(self.model), tuple((p.data_ptr(), p._version) for p in self._bottom())

    def check(self) -> None:
        """Drop the kept states if the bottom's parameters changed since they were computed."""
        now = self._fingerprint()
        if now != self._state:
            self.kept.clear()
            self.tokens = 0
            self._state = now

    def hidden(self, row: Any) -> Any:
        """The output of layers [0, k) for `row` ([1, T] token ids), kept for the next call with the same ids."""
        import torch

        key = tuple(row[0].tolist())
        got = self.kept.get(key)
        if got is not None:
            self.kept.move_to_end(key)
            self.hits += 1
            return got
        with torch.no_grad(), self._layers(0, self.start, norm=False):
            got = self.decoder(input_ids=row, use_cache=False).last_hidden_state.detach()
        self.kept[key] = got
        self.tokens += len(key)
        while self.tokens > self.max_tokens and len(self.kept) > 1:
            old, _ = self.kept.popitem(last=False)
            self.tokens -= len(old)
        return got

    def logits(self, row: Any, keep: Any) -> Any:
        """Logits at positions `keep` of `row`, from the kept bottom through the top layers with the adapters as
        they are (on: the policy, differentiable in them; inside `disable_adapter()`: the base)."""
        hidden = self.hidden(row)
        with self._layers(self.start, None, norm=True):
            return self.model(inputs_embeds=hidden, logits_to_keep=keep, use_cache=False).logits[0]

    def decoder_output(self, row: Any) -> Any:
        """The decoder's final hidden states (after its norm) for `row`, adapters as they are: [T, width]."""
        hidden = self.hidden(row)
        with self._layers(self.start, None, norm=True):
            return self.decoder(inputs_embeds=hidden, use_cache=False).last_hidden_state[0]

    @contextlib.contextmanager
    def _layers(self, start: int, stop: int | None, *, norm: bool) -> Iterator[None]:
        """The decoder with only layers [start, stop) (and without its final norm unless `norm`) for one call."""
        import torch

        layers, final = self.decoder.layers, self.decoder.norm
        self.decoder.layers = torch.nn.ModuleList(list(layers)[start:stop])
        if not norm:
            self.decoder.norm = torch.nn.Identity()
        try:
            yield
        finally:
            self.decoder.layers = layers
            self.decoder.norm = final
