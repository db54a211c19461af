"""In-loop DPO of the policy on its own passing vs failing samples of the same task, through TRL's `DPOTrainer`.

In: `PreferencePair`s (a task, a passing and a failing completion of it, from spade.train.buffer.preference_pairs)
and the `EmbeddedPolicy` whose model is trained in place. Out: `UpdateStats`. The algorithm is TRL's (Rafailov
et al. 2023, sigmoid loss); SPADE supplies the pairs and the optimizer. Departures from published DPO, deliberate:
- Online and incremental: pairs come from the policy's own rollouts of the loop's tasks, judged by execution, not
  from human preferences on a fixed set; each update continues from the current weights and AdamW state.
- The reference is the policy as it was when the update began (TRL copies the LoRA adapter into a frozen 'ref'
  adapter, dropped again afterwards), not the SFT model of the paper: each update stays near the policy that
  sampled its pairs.
- Both sides are the training targets RFT uses (extracted code plus a closing fence, then EOS), so prose and
  empty fences are neither preferred nor dispreferred; a failing sample without code keeps its raw text.
- LoRA (training.lora_r) as in RFT; on training.device (float32 on CPU: use_cpu, no bf16 flag, a bf16 base runs as loaded; bf16 on a GPU that has it);
  constant learning rate, gradients clipped to norm 1.0; steps from training.epochs over the pairs (or
  steps_per_update); beta = training.dpo_beta.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from spade.config import TrainingConfig
from spade.errors import TrainingError
from spade.records import Task, UpdateResult
from spade.train.base import UpdateBatch
from spade.train.rft import GRAD_CLIP, UpdateStats, drop_reference_adapter, update_steps


@dataclass(frozen=True, slots=True)
class PreferencePair:
    """A task, one of its passing completions (chosen) and one failing completion (rejected), as sampled."""

    task: Task
    chosen: str
    rejected: str
    prompt_variant: int = 0


class DpoUpdater:
    """Updates `policy.model` in place with DPO steps. Duck-types `RftTrainer` for checkpoints (prepare,
    optimizer, updates) and for `spade.train.gate.lower_lr`."""

    def __init__(self, policy: Any, training: TrainingConfig | None = None, *, seed: int = 0) -> None:
        self.policy = policy
        self.config = training or TrainingConfig()
        self.seed = seed  # the LoRA adapter's initial weights are a function of it (see spade.train.rft.with_lora)
        self.optimizer: Any = None
        self.updates = 0

    def prepare(self) -> None:
        """Wrap the model with LoRA (once) and build the AdamW that persists across updates; idempotent."""
        if self.optimizer is not None:
            return
        from spade.train.rft import trainable_with_optimizer

        self.optimizer = trainable_with_optimizer(self.policy, self.config, self.seed)

    def rows(self, pairs: Sequence[PreferencePair]) -> list[dict[str, str]]:
        """TRL's standard (non-conversational) preference rows: the rendered prompt, then each side's target."""
        target = self.policy.training_target
        return [{"prompt": self.policy.prompt_text(p.task, p.prompt_variant),
                 "chosen": target(p.task, p.chosen), "rejected": target(p.task, p.rejected)} for p in pairs]

    def update(self, batch: UpdateBatch) -> UpdateResult:
        """The Trainer protocol (spade.train.base): DPO steps on the batch's preference pairs."""
        stats = self.train_on(batch.pairs, seed=batch.seed)
        return UpdateResult(method="dpo", examples=stats.examples, steps=stats.steps, loss_first=stats.loss_first,
                            loss_last=stats.loss_last, seconds=stats.seconds)

    def train_on(self, pairs: Sequence[PreferencePair], *, seed: int = 0) -> UpdateStats:
        if not pairs:
            raise TrainingError("no preference pairs to train on; DPO needs tasks with both passing and failing samples")
        self.prepare()
        for group in self.optimizer.param_groups:
            group["initial_lr"] = group["lr"]  # the Trainer's scheduler starts from initial_lr; keep a lowered lr
        steps = update_steps(len(pairs), self.config)
        started = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="spade-dpo-") as out:
            trainer = self._trainer(self.rows(pairs), steps, seed, out)
            try:
                trainer.train()
            finally:
                drop_reference_adapter(self.policy.model)
                self.policy.model.eval()
        self.updates += 1
        losses = [float(e["loss"]) for e in trainer.state.log_history if "loss" in e]
        if not losses:
            raise TrainingError("DPO logged no loss; the pairs may all exceed training.max_seq_len")
        return UpdateStats(len(pairs), steps, losses[0], losses[-1], time.perf_counter() - started)

    def _trainer(self, rows: list[dict[str, str]], steps: int, seed: int, out: str) -> Any:
        from datasets import Dataset
        from transformers import PrinterCallback
        from trl import DPOConfig, DPOTrainer

        from spade.policy.device import resolve_device

        args = DPOConfig(
            output_dir=out, **resolve_device(self.config.device).trainer_args(), report_to=[], save_strategy="no",
            logging_steps=1, disable_tqdm=True, seed=seed, data_seed=seed, max_steps=steps,
            learning_rate=self.config.lr, lr_scheduler_type="constant", warmup_steps=0, weight_decay=0.0,
            max_grad_norm=GRAD_CLIP, per_device_train_batch_size=min(self.config.batch_size, len(rows)),
            gradient_accumulation_steps=1, beta=self.config.dpo_beta, max_length=self.config.max_seq_len,
            dataloader_num_workers=0, dataset_num_proc=None,
        )
        trainer = DPOTrainer(model=self.policy.model, args=args, train_dataset=Dataset.from_list(rows),
                             processing_class=self.policy.tokenizer, optimizers=(self.optimizer, None))
        trainer.remove_callback(PrinterCallback)  # it prints every log dict; the pipeline reports progress itself
        return trainer
