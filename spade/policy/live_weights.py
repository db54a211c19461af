"""The live weights of the embedded Llama model, laid out for the static decoder, and a test of when they changed.

In: the model the trainer updates in place (plain, or wrapped by peft with LoRA adapters). Out: a `LiveWeights`
record whose projections sharing an input are concatenated (q|k|v, gate|up) so a layer runs 4 matrix products
instead of 7, and whose LoRA adapters stay unmerged: W x + scale * B (A x) is computed as peft computes it (the
adapter in its own dtype, float32 by peft's default), because merging a small update into bfloat16 weights
would round most of it away and the sampler would no longer sample the weights that train. An adapter whose B is
all zeros (a fresh one: the trainers wrap the model before the first iteration samples) is left out, exactly.
`fingerprint` changes whenever any parameter is written in place (optimizer step, `load_state_dict`, adapter
load), replaced, or the model object is swapped; the decoder rebuilds its copy then. In bfloat16 the base weights
are also packed for oneDNN (`spade.policy.packing`); a rebuild re-packs only the weights that changed since the
previous snapshot (under LoRA the base weights never do).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from spade.errors import ModelError
from spade.policy.packing import pack

_GROUPS = (("self_attn", ("q_proj", "k_proj", "v_proj")), ("self_attn", ("o_proj",)),
           ("mlp", ("gate_proj", "up_proj")), ("mlp", ("down_proj",)))


@dataclass(frozen=True)
class Projection:
    """One fused projection: y = x W^T, plus scale-folded LoRA (A: [r_total, in], B: [out, r_total]) if any.
    `packed`: W packed for oneDNN (or None); `source`: the storage and write count of the parameters W was built
    from when it was packed, so a later snapshot can keep the packing while they are unchanged; `pinned`: those
    parameters (detached), which keep their storage alive while this snapshot lives, so a replaced parameter's
    address cannot be reused by a new one that would then look unchanged."""

    weight: Any
    lora_a: Any = None
    lora_b: Any = None
    packed: Any = None
    source: tuple = ()
    pinned: tuple = ()


@dataclass(frozen=True)
class Layer:
    in_norm: Any
    qkv: Projection
    o: Projection
    post_norm: Any
    gate_up: Projection
    down: Projection


@dataclass(frozen=True)
class LiveWeights:
    embed: Any
    head: Projection
    norm: Any
    layers: tuple[Layer, ...]
    heads: int
    kv_heads: int
    head_dim: int
    intermediate: int
    eps: float
    rope_theta: float
    dtype: Any


def fingerprint(model: Any) -> tuple:
    """Changes when any parameter's storage or in-place version changes, or adapters are switched.

    `Tensor._version` is torch's in-place write counter (the one autograd checks); an optimizer step, a
    `copy_` from a checkpoint and peft's adapter loading all bump it.
    """
    params = tuple((p.data_ptr(), p._version) for p in model.parameters())
    adapters = getattr(model, "active_adapters", ())  # peft's list; a plain transformers model has a method here
    return id(model), tuple(adapters) if isinstance(adapters, (list, tuple)) else (), params


def static_unsupported(model: Any) -> str | None:
    """Why the static decoder cannot run this model's architecture (None: it can): it runs plain Llama layers."""
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    config = base.config
    if getattr(config, "model_type", "") != "llama":
        return f"the static decoder runs Llama models, not {getattr(config, 'model_type', '?')!r}"
    rope = getattr(config, "rope_parameters", None) or {"rope_type": "default",
                                                        "rope_theta": getattr(config, "rope_theta", None)}
    if rope.get("rope_type", "default") != "default" or getattr(config, "attention_bias", False) \
            or getattr(config, "mlp_bias", False) or getattr(config, "hidden_act", "silu") != "silu":
        return "the static decoder supports plain Llama layers (default RoPE, no biases, SiLU)"
    return None


def snapshot(model: Any, previous: LiveWeights | None = None) -> LiveWeights:
    """Copy the model's current weights into the decoder's layout (see module doc); packings of `previous` whose
    source parameters are unchanged are reused."""
    import torch

    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    config = base.config
    unsupported = static_unsupported(model)
    if unsupported is not None:
        raise ModelError(f"{unsupported}; set sampling.engine: hf (or auto)")
    rope = getattr(config, "rope_parameters", None) or {"rope_type": "default", "rope_theta": config.rope_theta}
    inner = base.model
    packs = _packings(previous)
    with torch.no_grad():
        layers = tuple(
            Layer(in_norm=layer.input_layernorm.weight.detach(),
                  qkv=_fuse([getattr(layer.self_attn, n) for n in _GROUPS[0][1]], packs),
                  o=_fuse([layer.self_attn.o_proj], packs),
                  post_norm=layer.post_attention_layernorm.weight.detach(),
                  gate_up=_fuse([getattr(layer.mlp, n) for n in _GROUPS[2][1]], packs),
                  down=_fuse([layer.mlp.down_proj], packs))
            for layer in inner.layers)
        embed = _plain(inner.embed_tokens, "embed_tokens")
        head_weight = _plain(base.lm_head, "lm_head")
        head = _packed(Projection(head_weight, source=_source([head_weight]), pinned=(head_weight,)), packs)
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
    return LiveWeights(embed=embed, head=head, norm=inner.norm.weight.detach(), layers=layers,
                       heads=config.num_attention_heads, kv_heads=config.num_key_value_heads, head_dim=head_dim,
                       intermediate=config.intermediate_size, eps=float(config.rms_norm_eps),
                       rope_theta=float(rope["rope_theta"]), dtype=embed.dtype)


def _source(weights: list[Any]) -> tuple:
    return tuple((w.data_ptr(), w._version, tuple(w.shape), w.dtype) for w in weights)


def _packings(previous: LiveWeights | None) -> dict[tuple, Any]:
    """source -> packed weight, from a previous snapshot."""
    if previous is None:
        return {}
    projections = [previous.head] + [p for layer in previous.layers for p in (layer.qkv, layer.o, layer.gate_up,
                                                                             layer.down)]
    return {p.source: p.packed for p in projections if p.packed is not None}


def _packed(projection: Projection, packs: dict[tuple, Any]) -> Projection:
    packed = packs.get(projection.source) if projection.source else None
    if packed is None:
        packed = pack(projection.weight)
    return replace(projection, packed=packed)


def _plain(module: Any, name: str) -> Any:
    if hasattr(module, "lora_A") or hasattr(module, "lora_embedding_A"):
        if _active(module):
            raise ModelError(f"a LoRA adapter on {name} is not supported by the static decoder; "
                             "set sampling.engine: hf")
        module = module.get_base_layer()
    return module.weight.detach()


def _active(module: Any) -> list[str]:
    """The unmerged, enabled adapters of a peft LoRA layer that hold weights ([] for a plain Linear)."""
    if not hasattr(module, "lora_A") or module.disable_adapters:
        return []
    merged = set(getattr(module, "merged_adapters", ()))
    return [a for a in module.active_adapters if a in module.lora_A and a not in merged]


def _fuse(modules: list[Any], packs: dict[tuple, Any]) -> Projection:
    import torch

    bases = [m.get_base_layer() if hasattr(m, "lora_A") else m for m in modules]
    weight = bases[0].weight.detach() if len(bases) == 1 else torch.cat([b.weight.detach() for b in bases])
    source = _source([b.weight for b in bases])
    pinned = tuple(b.weight.detach() for b in bases)
    pieces = []  # (row offset of the output slice, A, scale * B)
    row = 0
    for module, b in zip(modules, bases):
        for adapter in _active(module):
            if getattr(module, "use_dora", {}).get(adapter, False) or getattr(module, "fan_in_fan_out", False):
                raise ModelError("DoRA and fan-in-fan-out LoRA layers are not supported by the static decoder; "
                                 "set sampling.engine: hf")
            a, up = module.lora_A[adapter].weight.detach(), module.lora_B[adapter].weight.detach()
            if not bool(up.any()):  # B = 0 (a fresh adapter, before its first update) adds exactly nothing
                continue
            pieces.append((row, a, up * module.scaling[adapter]))
        row += b.weight.shape[0]
    if not pieces:
        return _packed(Projection(weight, source=source, pinned=pinned), packs)
    rank = sum(a.shape[0] for _, a, _ in pieces)
    lora_a = torch.cat([a for _, a, _ in pieces])
    lora_b = torch.zeros(weight.shape[0], rank, dtype=pieces[0][2].dtype)
    col = 0
    for offset, a, bs in pieces:  # block-diagonal: each adapter writes only its own projection's rows
        lora_b[offset:offset + bs.shape[0], col:col + a.shape[0]] = bs
        col += a.shape[0]
    return _packed(Projection(weight, lora_a, lora_b, source=source, pinned=pinned), packs)
