"""Benchmark: the embedded policy's decoder against transformers' `generate` on the same prompts, same process.

Workload: T builtin-suite tasks x n samples each (rows sharing a prompt, as in the loop), sampled at the loop's
temperature, max_new_tokens as configured. Prints new tokens/s and sequences/s of both, alternating the two
A, B, A, B so that load drift on a shared machine hits both alike, and the ratio.
Run: .venv/bin/python bench/sampling.py [--tasks 8] [--n 4] [--max-new-tokens 128] [--threads 1] [--rounds 2]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from spade.config import SamplingConfig  # noqa: E402
from spade.evaluate.suites import load_suite  # noqa: E402
from spade.policy.decode import Decoder  # noqa: E402
from spade.policy.embedded import EmbeddedPolicy, _closed_after_code  # noqa: E402


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
            return torch.tensor([_closed_after_code(t) for t in decoded], dtype=torch.bool)

    torch.manual_seed(seed)
    with torch.inference_mode():
        out = model.generate(**enc, max_new_tokens=max_new, do_sample=True, temperature=temp, top_p=top_p, top_k=0,
                             pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id,
                             stopping_criteria=StoppingCriteriaList([Stop()]))
    counts = []
    for row in out[:, width:].tolist():
        counts.append(row.index(tok.eos_token_id) + 1 if tok.eos_token_id in row else len(row))
    return counts


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--tasks", type=int, default=8)
    p.add_argument("--n", type=int, default=4)
    p.add_argument("--max-new-tokens", type=int, default=128)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--temperature", type=float, default=0.8)
    args = p.parse_args()
    cfg = SamplingConfig(threads=args.threads, max_new_tokens=args.max_new_tokens)
    policy = EmbeddedPolicy(cfg)
    tasks = load_suite("builtin")[: args.tasks]
    texts = [policy.prompt_text(t, 0) for t in tasks for _ in range(args.n)]
    policy.model.eval()
    decoder = Decoder(policy.model, policy.tokenizer, _closed_after_code)
    totals = {"generate": [0.0, 0], "spade": [0.0, 0]}
    for r in range(args.rounds):
        for name in ("generate", "spade"):
            started = time.perf_counter()
            if name == "generate":
                counts = generic_generate(policy, texts, args.max_new_tokens, args.temperature, cfg.top_p, r)
            else:
                out = decoder.generate(texts, max_new_tokens=args.max_new_tokens, temperature=args.temperature,
                                       top_p=cfg.top_p, seed=r)
                counts = [n for _, n in out]
            elapsed = time.perf_counter() - started
            totals[name][0] += elapsed
            totals[name][1] += sum(counts)
            print(f"round {r} {name:8s} {len(texts)} rows, {sum(counts)} new tokens, {elapsed:.1f} s, "
                  f"{sum(counts) / elapsed:.1f} tok/s, {len(texts) / elapsed:.2f} seq/s", flush=True)
    seq = {k: args.rounds * len(texts) / v[0] for k, v in totals.items()}
    tok_s = {k: v[1] / v[0] for k, v in totals.items()}
    print(f"generate: {seq['generate']:.2f} seq/s {tok_s['generate']:.1f} tok/s | spade: {seq['spade']:.2f} seq/s "
          f"{tok_s['spade']:.1f} tok/s | speed-up (seq/s) {seq['spade'] / seq['generate']:.2f}x")


if __name__ == "__main__":
    main()
