"""Benchmark: new tokens per sample with each kind's stop rule against the old one (a fence after a `def`).

Drafts one task per procedural family of the kinds asked for (difficulty 0), validates them in the sandbox, and
samples each twice with the embedded policy under each rule, same seed; prints, per kind, the mean new tokens per
sample and how many samples reached max_new_tokens. Token counts do not depend on the machine's load.
Run: .venv/bin/python bench/stops.py [--kinds math,program,sql,structured,tool_call] [--samples 2] [--threads 1]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import spade.policy.embedded as embedded  # noqa: E402
from spade.config import ExecutorConfig, GenerationConfig, SamplingConfig  # noqa: E402
from spade.generate.procedural import draft_task  # noqa: E402
from spade.generate.registry import family_names, get_family  # noqa: E402
from spade.kinds import validate_drafts  # noqa: E402
from spade.policy.embedded import EmbeddedPolicy  # noqa: E402
from spade.sandbox import SandboxPool  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--kinds", default="math,program,sql,structured,tool_call")
    p.add_argument("--samples", type=int, default=2)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--max-new-tokens", type=int, default=256)
    args = p.parse_args()
    kinds = [k for k in args.kinds.split(",") if k]
    gen = GenerationConfig()
    drafts = [draft_task(f, 0.0, 5, 0, gen.public_tests, gen.hidden_tests)
              for f in family_names() if get_family(f).kind in kinds]
    with SandboxPool(ExecutorConfig()) as pool:
        tasks = [o.task for o in validate_drafts(drafts, pool, gen) if o.accepted and o.task is not None]
    policy = EmbeddedPolicy(SamplingConfig(threads=args.threads, max_new_tokens=args.max_new_tokens))
    own = embedded.stop_rule
    for label, rule in (("own rule", own), ("old rule (code)", lambda name: own("code"))):
        embedded.stop_rule = rule
        try:
            out = policy.sample(tasks, args.samples, seed=3)
        finally:
            embedded.stop_rule = own
        for kind in kinds:
            counts = [c.new_tokens for t, cs in zip(tasks, out) if t.kind == kind for c in cs]
            capped = sum(n >= args.max_new_tokens for n in counts)
            print(f"{label:16s} {kind:12s} {len(counts)} samples: mean {sum(counts) / max(1, len(counts)):.1f} new "
                  f"tokens, {capped} at max_new_tokens", flush=True)


if __name__ == "__main__":
    main()
