"""Weights pre-packed once for the CPU's matrix-product library (oneDNN), for the static decoder's products.

In: a weight matrix [out, in] of the live model. Out: the same weight in oneDNN's blocked layout, or None where
packing does not apply; `linear` multiplies by whichever it is given. Why: in bfloat16 torch runs a linear layer
on oneDNN from the weight's plain layout on every call; with the weight packed once, the same products measured
1.5-3.9x faster at the 1-4 rows of a decode step's tail and about even at 24-64 rows (the model's shapes, one
thread, AMD EPYC AVX-512 BF16; docs/method.md#the-embedded-sampler), bit-identical. Packing is checked, not assumed:
each packed weight's product is compared with torch's on a probe input, and a weight whose product differs in
any bit stays unpacked, so the sampler still samples exactly the weights that train. float32 weights are never
packed: torch multiplies them with another library, whose results a oneDNN product would not reproduce bit for
bit.
"""

from __future__ import annotations

from typing import Any

PACK_ROWS = 16  # oneDNN's batch-size hint; the packed weight serves any number of rows
_PROBE_ROWS = 3


def pack(weight: Any) -> Any:
    """`weight` packed for `linear`, or None (not bfloat16, no oneDNN in this torch, or a product that differs)."""
    import torch

    if weight.dtype != torch.bfloat16 or weight.dim() != 2 or not torch.backends.mkldnn.is_available():
        return None
    try:
        packed = torch.ops.mkldnn._reorder_linear_weight(weight.contiguous(), PACK_ROWS)
        probe = torch.randn(_PROBE_ROWS, weight.shape[1], generator=torch.Generator().manual_seed(0))
        probe = probe.to(weight.dtype)
        same = torch.equal(torch.nn.functional.linear(probe, weight), _packed_linear(probe, packed))
    except (AttributeError, RuntimeError, NotImplementedError):  # an op missing or refusing in this torch build
        return None
    return packed if same else None


def linear(x: Any, weight: Any, packed: Any = None) -> Any:
    """x W^T, with the packed weight when there is one."""
    import torch

    if packed is None:
        return torch.nn.functional.linear(x, weight)
    return _packed_linear(x, packed)


def _packed_linear(x: Any, packed: Any) -> Any:
    import torch

    return torch.ops.mkldnn._linear_pointwise(x, packed, None, "none", [], "")
