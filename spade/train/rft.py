"""Rejection-sampling fine-tuning (RFT) of the policy on its own passing samples, in place.

In: (task, completion) pairs that passed, and the `EmbeddedPolicy` whose model is updated (no reload).
Out: an `UpdateResult` (the Trainer protocol, spade.train.base). The published algorithm (RFT, Yuan et al. 2023; STaR, Zelikman et al. 2022): sample k answers
per problem, keep the correct ones (deduplicated), fine-tune the model with next-token loss on them.
Departures from it, all deliberate:
- Online and incremental: each update continues from the current weights (and optimizer state) for
  `training.epochs` passes over the buffer it is given (or `steps_per_update` steps when epochs is 0), instead
  of fine-tuning the base model from scratch on the whole collected set. Which samples make the buffer
  (verified, deduplicated, optionally only from tasks in the learning zone) is spade.train.buffer's choice.
- LoRA (r = training.lora_r) instead of a full fine-tune by default; lora_r 0 trains all weights in the sampling
  dtype, and in bfloat16 the optimizer steps float32 master copies of them (spade.train.master).
- LoRA weights are kept in float32 (peft's adapter autocast) while the frozen base stays in the sampling dtype;
  with dtype bfloat16 the forward runs under CPU bf16 autocast. The adapter's random start (lora_A) is drawn
  from the run seed, not from torch's global generator, so two runs with one seed start from one adapter.
- The target is the extracted code plus a closing fence, not the raw completion: trailing prose, example prints
  and empty fences are not reinforced. Deduplication of correct answers is left to the caller (the pipeline).
- Examples are seen in a seeded shuffle, cycled if fewer than steps × batch; sequences longer than
  max_seq_len are cut from the right; gradients are clipped to norm 1.0; no warm-up or learning-rate schedule.
- Loss is the mean over completion tokens of the batch (prompt tokens are masked out), plus, with
  training.kl_beta > 0 (auto: 0.5), kl_beta times the mean over those tokens of KL(policy || base), the base
  being the same model with its LoRA adapters off (no copy is kept): an anchor to the base's habits, which RFT
  alone drifts from.
- A batch is computed one example at a time, gradients accumulated, each example unpadded and its vocabulary
  logits taken only where they predict a completion token (`logits_to_keep`): the same loss and gradient as the
  padded batch, without the padding's compute or the prompt positions' logits. The base is frozen, so its final
  hidden states at those positions are kept per example across epochs and updates (`BaseLogits`, bounded): a
  replayed example's later sights run only its output head again (bench/update.py measures both). With adapters
  on the top layers only (`lora_layers`), the frozen bottom layers' output is kept per example across epochs and
  updates (spade.train.prefix): the policy's and the base's forwards start above it.
"""

from __future__ import annotations

import contextlib
import math
import random
import time
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from spade.config import TrainingConfig
from spade.errors import TrainingError
from spade.policy.device import model_device
from spade.records import Task, UpdateResult
from spade.train.base import UpdateBatch
from spade.train.prefix import FrozenPrefix

LORA_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
GRAD_CLIP = 1.0
MAX_BASE_POSITIONS = 65536  # the base's kept decoder outputs: ~150 MB of float32 at SmolLM2-135M's width (576)
IGNORE = -100


@dataclass(frozen=True, slots=True)
class TrainExample:
    """A passing sample: the task, the completion as sampled, and the prompt variant it answered. `weight` scales
    the example's next-token loss (1: plain RFT; a signed advantage makes the step a policy gradient, as self-play's
    proposer role takes under GRPO: spade.selfplay.proposer_update); the KL anchor is never scaled."""

    task: Task
    completion: str
    prompt_variant: int = 0
    weight: float = 1.0


@dataclass(frozen=True, slots=True)
class UpdateStats:
    examples: int
    steps: int
    loss_first: float
    loss_last: float
    seconds: float


class TrainablePolicy(Protocol):
    """What the trainer needs from a policy: the shared model pair and the prompt rendering of sampling."""

    model: Any

    @property
    def tokenizer(self) -> Any: ...

    @property
    def sampling(self) -> Any: ...

    def prompt_text(self, task: Task, variant: int) -> str: ...

    def training_target(self, task: Task, completion: str) -> str: ...


class RftTrainer:
    """Updates `policy.model` in place; keeps its optimizer across updates so checkpoints can resume it."""

    def __init__(self, policy: TrainablePolicy, training: TrainingConfig | None = None, *, seed: int = 0) -> None:
        self.policy = policy
        self.config = training or TrainingConfig()
        self.seed = seed  # the LoRA adapter's initial weights are a function of it (run.seed in a run)
        self.optimizer: Any = None
        self.prefix: FrozenPrefix | None = None
        self.base: BaseLogits | None = None  # the KL term's base outputs, kept across updates
        self.updates = 0

    def prepare(self) -> None:
        """Wrap the policy's model with LoRA (once) and build the optimizer; idempotent."""
        if self.optimizer is not None:
            return
        self.optimizer = trainable_with_optimizer(self.policy, self.config, self.seed)

    def update(self, batch: UpdateBatch) -> UpdateResult:
        """The Trainer protocol (spade.train.base): train on the batch's passing examples."""
        stats = self.train_on(batch.examples, seed=batch.seed)
        return UpdateResult(method="rft", examples=stats.examples, steps=stats.steps, loss_first=stats.loss_first,
                            loss_last=stats.loss_last, seconds=stats.seconds)

    def train_on(self, examples: Sequence[TrainExample | tuple[Task, str]], *, seed: int = 0) -> UpdateStats:
        """Run `update_steps` optimizer steps of batch_size examples; returns the first and last batch loss."""
        import torch

        items = [e if isinstance(e, TrainExample) else TrainExample(e[0], e[1]) for e in examples]
        if not items:
            raise TrainingError("no passing examples to train on; run sampling until some candidates pass")
        self.prepare()
        kept = [(e, s) for e, s in ((e, self._encode(e)) for e in items) if s is not None]
        encoded = [s for _, s in kept]
        weights = {id(s[0]): e.weight for e, s in kept if e.weight != 1.0}
        if not encoded:
            raise TrainingError(
                f"every example's prompt fills training.max_seq_len = {self.config.max_seq_len}; raise it"
            )
        model = self.policy.model
        started = time.perf_counter()
        losses: list[float] = []
        batches = _batches(encoded, self.config.batch_size, update_steps(len(encoded), self.config), seed)
        if self.prefix is None or self.prefix.model is not model:
            self.prefix = FrozenPrefix.build(model)
        if self.prefix is not None:
            self.prefix.check()
        base = None
        if self.config.kl_weight > 0:
            if self.base is None or self.base.model is not model or self.base.prefix is not self.prefix:
                self.base = BaseLogits(model, self.prefix)
            self.base.check()
            base = self.base
        model.train()
        try:
            for batch in batches:
                self.optimizer.zero_grad(set_to_none=True)
                loss = self._backward(batch, base, weights)
                if not math.isfinite(loss):
                    raise TrainingError(f"loss became {loss} at step {len(losses) + 1}; lower training.lr")
                torch.nn.utils.clip_grad_norm_([p for p in model.parameters() if p.requires_grad], GRAD_CLIP)
                self.optimizer.step()
                losses.append(loss)
        finally:
            model.eval()
        self.updates += 1
        return UpdateStats(len(encoded), len(losses), losses[0], losses[-1], time.perf_counter() - started)

    def _backward(self, batch: list[tuple[list[int], list[int]]], base: BaseLogits | None,
                  scale: dict[int, float] | None = None) -> float:
        """Accumulate the gradient of the batch's loss, one example at a time; returns the loss. `base` gives the
        KL term's base logits (None: no KL term); `scale` an example's weight by id of its ids (default 1)."""
        weight = self.config.kl_weight
        tokens = sum(scored_tokens(labels) for _, labels in batch)
        total = 0.0
        for ids, labels in batch:
            with self._autocast():
                nll, kl = example_terms(self.policy.model, ids, labels, base, self.prefix)
                nll = nll * (scale or {}).get(id(ids), 1.0)
                part = (nll + weight * kl if kl is not None else nll) / tokens
            part.backward()
            total += float(part.detach())
        return total

    def _encode(self, example: TrainExample) -> tuple[list[int], list[int]] | None:
        tok = self.policy.tokenizer
        prompt = tok(self.policy.prompt_text(example.task, example.prompt_variant), add_special_tokens=False)
        target = tok(self.policy.training_target(example.task, example.completion), add_special_tokens=False)
        prompt_ids = prompt["input_ids"]
        target_ids = target["input_ids"] + [tok.eos_token_id]  # teach it to stop after the fence
        keep = self.config.max_seq_len - len(prompt_ids)
        if keep <= 0:
            return None
        ids = prompt_ids + target_ids[:keep]
        labels = [IGNORE] * len(prompt_ids) + target_ids[:keep]
        return ids, labels

    def _autocast(self) -> Any:
        import torch

        if getattr(self.policy, "dtype", self.policy.sampling.dtype) == "bfloat16":
            return torch.autocast(model_device(self.policy.model).type, dtype=torch.bfloat16)
        return contextlib.nullcontext()


def scored_tokens(labels: Sequence[int]) -> int:
    """Tokens of an encoded example that the loss scores (its completion; the first token is never a target)."""
    return sum(1 for label in labels[1:] if label != IGNORE)


def example_terms(model: Any, ids: Sequence[int], labels: Sequence[int], base: BaseLogits | None,
                  prefix: FrozenPrefix | None = None) -> tuple[Any, Any]:
    """(summed next-token loss, summed KL(policy || base) or None without `base`) over one example's completion
    tokens. Unpadded, and the vocabulary logits only at the positions that predict a completion token;
    differentiable in the policy. `prefix`: the model's frozen bottom layers, their output kept per example."""
    import torch

    device = model_device(model)
    row = torch.tensor([list(ids)], device=device)
    targets = torch.tensor(list(labels), device=device)
    keep = torch.nonzero(targets[1:] != IGNORE).squeeze(1)  # logits at position t predict the label at t + 1
    if prefix is not None:
        logits = prefix.logits(row, keep)
    else:
        logits = model(input_ids=row, logits_to_keep=keep, use_cache=False).logits[0]
    policy = torch.log_softmax(logits.float(), dim=-1)
    nll = -policy.gather(1, targets[keep + 1].unsqueeze(1)).sum()
    if base is None:
        return nll, None
    reference = torch.log_softmax(base.logits(row, keep).float(), dim=-1)
    return nll, (policy.exp() * (policy - reference)).sum()


class BaseLogits:
    """Logits of the base (`model`, a peft model, with its adapters off) at an example's kept positions. The base
    is frozen, so its decoder's output there is kept per example, across epochs and updates (bounded: the oldest
    go first past `max_positions` kept positions), and a later sight runs only the output head on it; the kept
    outputs are dropped when any frozen parameter changes (`check`). Whether logits are the head applied to the
    decoder's output (true of Llama-like models; not of models that scale or cap logits) is checked against a full
    forward on first use; where not, every call is a full forward. With a `prefix` the decoder's output starts
    from the kept bottom layers' output.
    """

    def __init__(self, model: Any, prefix: FrozenPrefix | None = None, *,
                 max_positions: int = MAX_BASE_POSITIONS) -> None:
        self.model = model
        self.prefix = prefix
        self.max_positions = max_positions
        self.hidden: OrderedDict[tuple[tuple[int, ...], int], Any] = OrderedDict()
        self.positions = 0
        self.hits = 0
        self.split: bool | None = None  # None: not yet checked
        self._state = self._fingerprint()

    def _fingerprint(self) -> tuple[int, tuple[tuple[int, int], ...]]:
        return id(self.model), tuple((p.data_ptr(), p._version) for p in self.model.parameters()
                                     if not p.requires_grad)

    def check(self) -> None:
        """Drop the kept outputs if a frozen parameter was replaced or written since they were computed."""
        now = self._fingerprint()
        if now != self._state:
            self.hidden.clear()
            self.positions = 0
            self._state = now

    def logits(self, row: Any, keep: Any) -> Any:
        import torch

        inner = self.model.get_base_model()
        head = inner.get_output_embeddings()
        key = (tuple(row[0].tolist()), int(keep[0]))
        with torch.no_grad(), self.model.disable_adapter():
            if key in self.hidden:
                self.hidden.move_to_end(key)
                self.hits += 1
                return head(self.hidden[key])
            if self.split is False:
                return self.model(input_ids=row, logits_to_keep=keep, use_cache=False).logits[0]
            if self.prefix is not None:
                hidden = self.prefix.decoder_output(row)[keep]
            else:
                hidden = inner.get_decoder()(input_ids=row, use_cache=False).last_hidden_state[0, keep]
            if self.split is None:
                full = self.model(input_ids=row, logits_to_keep=keep, use_cache=False).logits[0]
                self.split = bool(torch.allclose(head(hidden), full, rtol=1e-4, atol=1e-4))
                if not self.split:
                    return full
            self.hidden[key] = hidden
            self.positions += int(hidden.shape[0])
            while self.positions > self.max_positions and len(self.hidden) > 1:
                _, old = self.hidden.popitem(last=False)
                self.positions -= int(old.shape[0])
            return head(hidden)


def update_steps(examples: int, config: TrainingConfig) -> int:
    """Optimizer steps of one update on `examples` examples: enough batches to see each `epochs` times (the last
    batch of a pass is filled from the next shuffle), or steps_per_update when epochs is 0."""
    if config.epochs <= 0:
        return config.steps_per_update
    return max(1, math.ceil(config.epochs * examples / min(config.batch_size, examples)))


def trainable_with_optimizer(policy: Any, config: TrainingConfig, seed: int) -> Any:
    """Make the policy's model trainable (LoRA adapters when `lora_r` > 0, else every weight) and return the AdamW
    over what trains; the trainers keep it across updates."""
    import torch

    from spade.train.master import MasterAdamW, needs_master

    if config.lora_r > 0:
        policy.model = with_lora(policy.model, config, seed)
    else:
        for p in policy.model.parameters():
            p.requires_grad_(True)
    params = [p for p in policy.model.parameters() if p.requires_grad]
    if config.lora_r == 0 and needs_master(params):  # a full fine-tune in bfloat16: steps accumulate in float32
        return MasterAdamW(params, lr=config.lr, weight_decay=0.0)
    return torch.optim.AdamW(params, lr=config.lr, weight_decay=0.0)


def drop_reference_adapter(model: Any) -> None:
    """Remove the frozen 'ref' adapter TRL's DPO and GRPO trainers add beside the trained LoRA adapter (a copy of
    it, their KL reference), and make 'default' active again. Each update builds a new trainer, which refuses to
    add 'ref' when one is left from the last update, and the sampler must see only the trained adapter."""
    if "ref" in getattr(model, "peft_config", {}):
        model.delete_adapter("ref")
        model.set_adapter("default")


def with_lora(model: Any, config: TrainingConfig, seed: int) -> Any:
    import torch
    from peft import LoraConfig, PeftModel, get_peft_model

    if isinstance(model, PeftModel):  # an adapter loaded for sampling: train that one
        for name, p in model.named_parameters():
            p.requires_grad_("lora_" in name)
        return model
    layers = int(getattr(model.config, "num_hidden_layers", 0) or 0)
    top = range(max(0, layers - config.lora_layers), layers) if 0 < config.lora_layers < layers else None
    lora = LoraConfig(
        r=config.lora_r, lora_alpha=config.lora_alpha, lora_dropout=0.0,
        target_modules=list(LORA_TARGETS), task_type="CAUSAL_LM",
        layers_to_transform=list(top) if top is not None else None,
    )
    # peft draws lora_A (kaiming-uniform) from torch's global generator, whose start differs per process on
    # this torch (torch.initial_seed() changes from one interpreter to the next). Unseeded, a run and a rerun of
    # it (or a run and the run it is compared with after a resume) start from different adapters, and after one
    # update they sample different tokens: in bfloat16 the difference survives rounding. Draw it from `seed` on
    # a forked generator, so the global one is left as it was.
    with torch.random.fork_rng(devices=[]):
        torch.default_generator.manual_seed(seed)
        return get_peft_model(model, lora)


def _batches(
    encoded: list[tuple[list[int], list[int]]], batch_size: int, steps: int, seed: int
) -> Iterator[list[tuple[list[int], list[int]]]]:
    order: list[int] = []
    rng = random.Random(seed)
    size = min(batch_size, len(encoded))
    for _ in range(steps):
        if len(order) < size:
            fresh = list(range(len(encoded)))
            rng.shuffle(fresh)
            order.extend(fresh)
        yield [encoded[i] for i in order[:size]]
        del order[:size]
