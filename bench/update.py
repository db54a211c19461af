"""Benchmark: seconds per RFT optimizer step, SPADE's update against the padded batch it replaced, same run.

Both compute the same loss and gradient (tests/train/test_rft.py checks it): the mean next-token loss over a
batch's completion tokens plus kl_beta times the mean KL to the adapters-off base there. The baseline is one
padded batch through transformers' forward with labels (logits at every position, prompt and padding included)
and a second padded forward for the base; SPADE's (spade.train.rft) runs each example unpadded and takes
vocabulary logits only where they predict a completion token; from an example's second epoch on, the base's
decoder outputs kept from its first (its logits are the output head on them). The batches are the held-out dev split's
references as answers, encoded as an update encodes them (prompt + code + fence, up to training.max_seq_len), so
their lengths are those of the loop's buffer. Printed: seconds per step for each (SPADE's on a first and on a later epoch), the ratios, tokens in a step.
An update of training.epochs 3 spends one step in three on a first epoch.
  .venv/bin/python bench/update.py [--threads 2] [--steps 3] [--batch-size 8] [--lora-layers 15]
Adapters on every layer (training.lora_layers: 0); with --lora-layers N (the default config's is 15) the same
batches also go through a policy whose adapters sit on its last N layers only, without and with its frozen bottom
layers' output kept (spade.train.prefix: computed on an example's first sight, reused in later epochs and updates).
The base's decoder outputs (the KL term) are kept across updates too now (spade.train.rft.BaseLogits): a replayed
example's later update costs what a later epoch costs; the row "a later update, base recomputed" is the cost before.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def padded_batch_loss(model: Any, encoded: list[tuple[list[int], list[int]]], pad_id: int, kl_weight: float) -> Any:
    """The loss as one right-padded batch computes it (RFT before d3785d5): transformers' mean next-token loss
    over the batch's completion tokens from full logits, plus kl_weight times the mean KL to the adapters-off
    model at those tokens."""
    import torch

    from spade.train.rft import IGNORE

    width = max(len(ids) for ids, _ in encoded)
    ids = torch.tensor([i + [pad_id] * (width - len(i)) for i, _ in encoded])
    mask = torch.tensor([[1] * len(i) + [0] * (width - len(i)) for i, _ in encoded])
    labels = torch.tensor([lab + [IGNORE] * (width - len(lab)) for _, lab in encoded])
    out = model(input_ids=ids, attention_mask=mask, labels=labels)
    if kl_weight <= 0:
        return out.loss
    scored = labels[:, 1:] != IGNORE
    with torch.no_grad(), model.disable_adapter():
        base = torch.log_softmax(model(input_ids=ids, attention_mask=mask).logits[:, :-1][scored].float(), dim=-1)
    policy = torch.log_softmax(out.logits[:, :-1][scored].float(), dim=-1)
    return out.loss + kl_weight * (policy.exp() * (policy - base)).sum(dim=-1).mean()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--steps", type=int, default=3, help="timed steps of each (distinct batches)")
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--lora-layers", type=int, default=0,
                   help="also time SPADE's update with adapters on the last N layers only (training.lora_layers)")
    args = p.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    from spade.config import SamplingConfig, TrainingConfig
    from spade.evaluate.suites import load_suite
    from spade.policy.embedded import EmbeddedPolicy
    from spade.train.prefix import FrozenPrefix
    from spade.train.rft import BaseLogits, RftTrainer, TrainExample, scored_tokens

    training = TrainingConfig(batch_size=args.batch_size, lora_layers=0)  # every layer: the figures' baseline
    policy = EmbeddedPolicy(SamplingConfig(threads=args.threads), training)
    trainer = RftTrainer(policy, training, seed=0)
    trainer.prepare()
    answers = (TrainExample(t, f"```python\n{t.reference_solution}\n```") for t in load_suite("heldout-dev"))
    encoded = [e for e in map(trainer._encode, answers) if e is not None]
    batches = [encoded[k * args.batch_size:(k + 1) * args.batch_size] for k in range(args.steps)]
    if len(batches[-1]) < args.batch_size:
        sys.exit(f"--steps {args.steps} x --batch-size {args.batch_size} needs more examples than the {len(encoded)} here")
    model = policy.model
    model.train()

    def padded(batch: list[Any]) -> None:
        padded_batch_loss(model, batch, policy.tokenizer.pad_token_id, training.kl_weight).backward()

    base = BaseLogits(model) if training.kl_weight > 0 else None

    def spade(batch: list[Any]) -> None:  # run twice a batch: the second finds the base's decoder outputs kept
        trainer._backward(batch, base)

    timings: dict[str, list[float]] = {"padded batch (before)": [], "spade, first epoch": [],
                                       "spade, later epochs": []}
    steps: list[Any] = [padded, spade, spade]
    models = [model, model, model]
    if args.lora_layers:  # the same batches through a second policy whose adapters sit on the top layers only
        top = training.model_copy(update={"lora_layers": args.lora_layers})
        other = EmbeddedPolicy(SamplingConfig(threads=args.threads), top)
        other_trainer = RftTrainer(other, top, seed=0)
        other_trainer.prepare()
        other.model.train()
        other_base = BaseLogits(other.model) if top.kl_weight > 0 else None

        def upper(batch: list[Any]) -> None:
            other_trainer.prefix = None
            other_trainer._backward(batch, other_base)

        # The same policy with its frozen bottom layers' output kept (spade.train.prefix): a batch seen for the
        # first time, then a later epoch of the same update (or a later update: the base's decoder outputs are kept
        # across updates too), then a later update with the base's outputs recomputed, as before they were kept.
        kept = FrozenPrefix.build(other.model)
        update_base: list[Any] = [None]

        def kept_bottom(batch: list[Any], new_update: bool) -> None:
            other_trainer.prefix = kept
            if new_update and top.kl_weight > 0:
                update_base[0] = BaseLogits(other.model, kept)
            other_trainer._backward(batch, update_base[0])

        for epoch in ("first epoch", "later epochs"):
            timings[f"spade, top {args.lora_layers} layers, {epoch}"] = []
        for when in ("first sight", "later epochs or updates", "a later update, base recomputed"):
            timings[f"top {args.lora_layers} + kept bottom, {when}"] = []
        steps += [upper, upper, lambda b: kept_bottom(b, True), lambda b: kept_bottom(b, False),
                  lambda b: kept_bottom(b, True)]
        models += [other.model] * 5
    for batch in batches:
        for (name, step), m in zip(zip(timings, steps), models):
            m.zero_grad(set_to_none=True)
            started = time.perf_counter()
            step(batch)
            timings[name].append(time.perf_counter() - started)
    for m in models:
        m.zero_grad(set_to_none=True)
    width = [max(len(ids) for ids, _ in b) * len(b) for b in batches]
    real = [sum(len(ids) for ids, _ in b) for b in batches]
    scored = [sum(scored_tokens(lab) for _, lab in b) for b in batches]
    print(f"policy {policy.name}, {args.threads} threads, kl_beta {training.kl_weight}, batch {args.batch_size}; "
          f"per step: {statistics.mean(width):.0f} padded positions, {statistics.mean(real):.0f} tokens, "
          f"{statistics.mean(scored):.0f} scored")
    base = statistics.mean(timings["padded batch (before)"])
    for name, seconds in timings.items():
        mean = statistics.mean(seconds)
        print(f"  {name:40s} {mean:7.2f} s/step  {base / mean:5.2f}x")


if __name__ == "__main__":
    main()
