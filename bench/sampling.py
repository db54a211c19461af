"""Benchmark: SPADE's sampler against transformers' `generate` and the previous SPADE decoder, same prompts, one run.

Workload: the config's loop sampling (generation.tasks_per_iteration builtin-suite tasks x sampling.n samples,
prompt variants rotating as in the loop, sampling.temperature/top_p/max_new_tokens), in batches of
sampling.batch_size (or what `auto` picks). Each round runs the three engines in turn (static, generate, hf) so that load drift on a
shared machine hits all alike; prints sequences/s and new tokens/s per engine and the ratios of the static
sampler to the other two (sequences/s: what the loop waits for). Also the cost of re-reading the weights after
an update (the static sampler's refresh).
Run: .venv/bin/python bench/sampling.py [--config configs/tiny.yaml] [--threads 2] [--rounds 2] [--lora trained]
[--breakdown]
(--lora fresh|trained: the model wrapped in LoRA adapters as the loop's trainer wraps it, so every engine samples
what the loop samples; without it the bare model, which the loop samples only with training off).
--breakdown: where the static sampler's time goes instead (its prefill, its decode steps by live rows, the rest; then
the operators' shares of one decode step at the fewest and the most rows, from torch.profiler).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from spade.config import load_config  # noqa: E402
from spade.evaluate.suites import load_suite  # noqa: E402
from spade.policy.embedded import EmbeddedPolicy, make_decoder  # noqa: E402
from spade.policy.prompts import variant_for  # noqa: E402
from spade.policy.stops import closed_after_code  # noqa: E402

ENGINES = ("static", "generate", "hf")


def generic_generate(policy: EmbeddedPolicy, texts: list[str], max_new: int, temp: float, top_p: float,
                     seed: int) -> list[int]:
    """The baseline: one `model.generate` call over the padded batch with a whole-batch stop test per step."""
    import torch
    from transformers import StoppingCriteria, StoppingCriteriaList

    tok, model = policy.tokenizer, policy.model
    enc = tok(texts, return_tensors="pt", padding=True, add_special_tokens=False)
    width = enc["input_ids"].shape[1]

    class Stop(StoppingCriteria):
        def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
            decoded = tok.batch_decode(input_ids[:, width:], skip_special_tokens=True)
            return torch.tensor([closed_after_code(t) for t in decoded], dtype=torch.bool)

    torch.manual_seed(seed)
    with torch.inference_mode():
        out = model.generate(**enc, max_new_tokens=max_new, do_sample=temp > 0, temperature=temp or None,
                             top_p=top_p, top_k=0, pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id,
                             stopping_criteria=StoppingCriteriaList([Stop()]))
    counts = []
    for row in out[:, width:].tolist():
        counts.append(row.index(tok.eos_token_id) + 1 if tok.eos_token_id in row else len(row))
    return counts


def refresh_seconds(policy: EmbeddedPolicy, decoder: Any) -> tuple[float, float]:
    """Time to re-read the weights after an update: of every parameter (a full fine-tune: a no-op write bumps
    every version, and bfloat16 weights are packed again), and of LoRA adapters only (the loop's default: the
    frozen base keeps its packing). The second wraps the bench's model in LoRA, so it runs last."""
    import torch
    from peft import LoraConfig, get_peft_model

    with torch.no_grad():
        for p in policy.model.parameters():
            p.mul_(1.0)
    started = time.perf_counter()
    decoder.weights()
    full = time.perf_counter() - started
    targets = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
    get_peft_model(policy.model, LoraConfig(r=policy.training.lora_r, lora_alpha=policy.training.lora_alpha,
                                            target_modules=targets))  # adapters injected into the model's layers
    decoder.weights()  # as in the loop: the first read after wrapping keeps the base's packings
    with torch.no_grad():
        for name, p in policy.model.named_parameters():
            if "lora_" in name:
                p.mul_(1.0)
    started = time.perf_counter()
    decoder.weights()
    return full, time.perf_counter() - started


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--config", default="configs/tiny.yaml")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--tasks", type=int, default=0, help="tasks (0: the config's generation.tasks_per_iteration)")
    p.add_argument("--lora", choices=("off", "fresh", "trained"), default="off",
                   help="sample as the loop does once its trainer has wrapped the model in LoRA adapters (training."
                        "lora_r): fresh (B = 0, before the first update) or trained (B moved, as after one)")
    p.add_argument("--breakdown", action="store_true",
                   help="time the static sampler's prefill, decode steps and operators instead of comparing engines")
    args = p.parse_args()
    cfg = load_config(args.config)
    s = cfg.sampling.model_copy(update={"threads": args.threads})
    policy = EmbeddedPolicy(s, cfg.training)
    if args.lora != "off":
        with_adapters(policy, args.lora == "trained")
    tasks = load_suite("builtin")[: args.tasks or cfg.generation.tasks_per_iteration]
    texts = [policy.prompt_text(t, variant_for(i)) for t in tasks for i in range(s.sampling_n)]
    texts.sort(key=len)  # as EmbeddedPolicy batches them
    size = policy.batch_size_for(texts)  # sampling.batch_size, or what `auto` picks; the same for every engine
    batches = [texts[i:i + size] for i in range(0, len(texts), size)]
    policy.model.eval()
    if args.breakdown:
        breakdown(policy, batches, s, args.rounds)
        return
    decoders = {name: make_decoder(name, policy.model, policy.tokenizer) for name in ("static", "hf")}
    for d in decoders.values():  # one-off warm-up (bf16 kernels, first allocation) charged to no engine
        d.generate(texts[:2], max_new_tokens=4, temperature=s.temperature, top_p=s.top_p, seed=0)
    print(f"{args.config}: {len(tasks)} tasks x {s.sampling_n} samples = {len(texts)} sequences in batches of "
          f"{size} (batch_size {s.batch_size}), max_new_tokens {s.max_new_tokens}, T={s.temperature}, top_p={s.top_p}, "
          f"dtype {policy.dtype}, {args.threads} threads", flush=True)
    totals = {name: [0.0, 0] for name in ENGINES}
    per_batch: dict[str, list[list[int]]] = {name: [] for name in ENGINES}  # new tokens per row, batch by batch
    for r in range(args.rounds):
        for name in ENGINES:
            started = time.perf_counter()
            counts = []
            for b, batch in enumerate(batches):
                seed = r * 1000 + b
                if name == "generate":
                    made = generic_generate(policy, batch, s.max_new_tokens, s.temperature, s.top_p, seed)
                else:
                    made = [n for _, n in decoders[name].generate(
                        batch, max_new_tokens=s.max_new_tokens, temperature=s.temperature, top_p=s.top_p, seed=seed)]
                counts += made
                per_batch[name].append(made)
            elapsed = time.perf_counter() - started
            totals[name][0] += elapsed
            totals[name][1] += sum(counts)
            print(f"round {r} {name:8s} {len(texts)} seqs, {sum(counts)} new tokens, {elapsed:.1f} s, "
                  f"{sum(counts) / elapsed:.1f} tok/s, {len(texts) / elapsed:.2f} seq/s", flush=True)
    seq = {k: args.rounds * len(texts) / v[0] for k, v in totals.items()}
    tok_s = {k: v[1] / v[0] for k, v in totals.items()}
    print(" | ".join(f"{k}: {seq[k]:.2f} seq/s {tok_s[k]:.1f} tok/s" for k in ENGINES))
    print(f"static vs generate: {seq['static'] / seq['generate']:.2f}x seq/s, "
          f"{tok_s['static'] / tok_s['generate']:.2f}x tok/s | static vs previous SPADE decoder (hf): "
          f"{seq['static'] / seq['hf']:.2f}x seq/s, {tok_s['static'] / tok_s['hf']:.2f}x tok/s")
    roofline(policy, batches, per_batch, {k: v[0] for k, v in totals.items()})
    if args.lora == "off":
        full, lora = refresh_seconds(policy, decoders["static"])
        print(f"weight refresh after an update: {full:.3f} s of every parameter, {lora:.3f} s of LoRA adapters only")


def breakdown(policy: EmbeddedPolicy, batches: list[list[str]], s: Any, rounds: int) -> None:
    """The static sampler's time split: each call of the workload timed around its prefill and its decode steps
    (the module's own functions, wrapped for the bench), steps grouped by live rows; then torch.profiler's
    operator shares of 10 decode steps at the fewest and the most rows seen, on a cache as long as the calls'."""
    import collections

    import torch

    from spade.policy import static_decode

    decoder = make_decoder("static", policy.model, policy.tokenizer)
    decoder.generate(batches[0][:2], max_new_tokens=4, temperature=s.temperature, top_p=s.top_p, seed=0)  # warm-up
    prefill, step = static_decode._prefill, static_decode._decode_step
    spent = {"prefill": 0.0}
    steps: dict[int, list[float]] = collections.defaultdict(list)
    shape: dict[str, Any] = {}

    def timed_prefill(*a: Any) -> Any:
        started = time.perf_counter()
        out = prefill(*a)
        spent["prefill"] += time.perf_counter() - started
        return out

    def timed_step(w: Any, tokens: Any, positions: Any, column: int, rope: Any, cache: Any, bias: Any) -> Any:
        started = time.perf_counter()
        out = step(w, tokens, positions, column, rope, cache, bias)
        steps[tokens.shape[0]].append(time.perf_counter() - started)
        shape.update(length=cache.shape[4], column=column)
        return out

    static_decode._prefill, static_decode._decode_step = timed_prefill, timed_step
    try:
        for r in range(rounds):
            spent["prefill"] = 0.0
            steps.clear()
            started = time.perf_counter()
            for b, batch in enumerate(batches):
                decoder.generate(batch, max_new_tokens=s.max_new_tokens, temperature=s.temperature, top_p=s.top_p,
                                 seed=r * 1000 + b)
            total = time.perf_counter() - started
            stepping = sum(sum(v) for v in steps.values())
            print(f"round {r}: {total:.2f} s in all: prefill {spent['prefill']:.2f} s, "
                  f"{sum(len(v) for v in steps.values())} decode steps {stepping:.2f} s, "
                  f"the rest {total - spent['prefill'] - stepping:.2f} s", flush=True)
            print("  ms per decode step by live rows: " + ", ".join(
                f"{rows}: {1e3 * sum(v) / len(v):.1f} ({len(v)} steps)" for rows, v in sorted(steps.items())))
    finally:
        static_decode._prefill, static_decode._decode_step = prefill, step
    w = decoder.weights()
    for rows in sorted({min(steps), max(steps)}):
        cache = torch.zeros(len(w.layers), 2, rows, w.kv_heads, shape["length"], w.head_dim, dtype=w.dtype)
        rope = static_decode._rope_table(w, shape["length"])
        bias = torch.zeros(rows, shape["length"])
        tokens, positions = torch.zeros(rows, dtype=torch.long), torch.full((rows,), shape["column"] // 2)
        with torch.inference_mode():
            step(w, tokens, positions, shape["column"] // 2, rope, cache, bias)
            with torch.profiler.profile() as prof:
                for _ in range(10):
                    step(w, tokens, positions, shape["column"] // 2, rope, cache, bias)
        ops = sorted(prof.key_averages(), key=lambda e: -e.self_cpu_time_total)
        whole = sum(e.self_cpu_time_total for e in ops)
        print(f"operators of 10 decode steps at {rows} rows, {shape['length']}-column cache: " + ", ".join(
            f"{e.key} {e.self_cpu_time_total / whole:.0%} ({e.count // 10}/step)" for e in ops[:6]))


def with_adapters(policy: EmbeddedPolicy, trained: bool) -> None:
    """Wrap the policy's model in LoRA adapters as the RFT trainer does; `trained` moves every B off zero (seeded
    normal values of the size one update leaves), so the engines pay for the adapters as after an update."""
    import torch

    from spade.train.rft import trainable_with_optimizer

    trainable_with_optimizer(policy, policy.training, seed=0)
    if trained:
        gen = torch.Generator().manual_seed(0)
        with torch.no_grad():
            for name, param in policy.model.named_parameters():
                if "lora_B" in name:
                    param.copy_(1e-3 * torch.randn(param.shape, generator=gen, dtype=param.dtype))


def matmul_flops_per_token(model: Any) -> float:
    """2 x the weights every token multiplies: the decoder's linear layers and the LM head (attention over the
    cache is left out: at these lengths it is a few percent)."""
    import torch

    return 2.0 * sum(m.weight.numel() for m in model.modules() if isinstance(m, torch.nn.Linear))


def machine_limits(model: Any, rows: int = 512, repeats: int = 5) -> tuple[float, float]:
    """(FLOP/s, bytes/s) of this process's threads in the model's dtype, each the best of plain and packed
    weights (spade.policy.packing): the model's largest matrix products at a large batch (compute bound), and
    its LM head at one row (bound by reading the weights from memory)."""
    import torch

    from spade.policy.packing import linear, pack

    def rate(weight: Any, x: Any, times: int) -> float:
        best = 0.0
        for packed in {None, pack(weight)}:  # the packing, where there is one, and the plain weight
            linear(x, weight, packed)
            started = time.perf_counter()
            for _ in range(times):
                linear(x, weight, packed)
            best = max(best, times / (time.perf_counter() - started))
        return best  # products per second

    cfg = model.config
    dtype = next(model.parameters()).dtype
    peak = 0.0
    for n, k in ((2 * cfg.intermediate_size, cfg.hidden_size), (cfg.vocab_size, cfg.hidden_size)):
        w, x = torch.randn(n, k, dtype=dtype), torch.randn(rows, k, dtype=dtype)
        peak = max(peak, 2.0 * rows * n * k * rate(w, x, repeats))
    w, x = torch.randn(cfg.vocab_size, cfg.hidden_size, dtype=dtype), torch.randn(1, cfg.hidden_size, dtype=dtype)
    bandwidth = w.numel() * w.element_size() * rate(w, x, 4 * repeats)
    return peak, bandwidth


def roofline(policy: EmbeddedPolicy, batches: list[list[str]], counts: dict[str, list[list[int]]],
             seconds: dict[str, float]) -> None:
    """How close each engine came to what the machine allows for the work it did: per batch, each distinct
    prompt's tokens once at the peak matrix-product rate, then one step per token of the longest row, each step
    no faster than the larger of its rows' products at peak and one read of the weights at the measured memory
    bandwidth. An engine cannot go faster than this bound, so it also bounds any ratio between engines."""
    flops = matmul_flops_per_token(policy.model)
    weight_bytes = sum(p.numel() * p.element_size() for p in policy.model.parameters())
    peak, bandwidth = machine_limits(policy.model)
    step_floor = weight_bytes / bandwidth
    prompt_tokens = [sum(len(policy.tokenizer(t, add_special_tokens=False)["input_ids"]) for t in set(b))
                     for b in batches]
    print(f"roofline: {flops / 1e9:.3f} GFLOP and {weight_bytes / 1e6:.0f} MB of weights per step, peak "
          f"{peak / 1e9:.0f} GFLOP/s, {bandwidth / 1e9:.1f} GB/s (one step >= {1e3 * step_floor:.1f} ms)")
    for name, per_batch in counts.items():
        bound = 0.0
        for b, rows in enumerate(per_batch):
            tokens = prompt_tokens[b % len(batches)]
            bound += tokens * flops / peak
            bound += sum(max(sum(c > t for c in rows) * flops / peak, step_floor) for t in range(max(rows, default=0)))
        print(f"roofline: {name}: {bound:.1f} s at the machine's limits vs {seconds[name]:.1f} s measured: "
              f"{bound / seconds[name]:.0%} of what the machine allows")


if __name__ == "__main__":
    main()
