"""Online GRPO of the policy through TRL's `GRPOTrainer`, rewarded by SPADE's sandbox, on a live task stream.

In: the `EmbeddedPolicy` (its model is trained in place), a `SandboxPool`, the reward config and `task_stream`,
a callable that returns the next task (by default a `TaskStream` over each `UpdateBatch`'s tasks, which the loop
draws at the controller's current difficulty; read lazily, one prompt at a time, so a difficulty change reaches
training within a batch or two). Completions are graded on the one grading path (spade.rollout). Out: an
`UpdateResult` (the Trainer protocol) carrying the graded rollouts, which the loop commits with the iteration.
The algorithm is TRL's; SPADE supplies prompts, reward and optimizer. Departures from published GRPO
(DeepSeekMath, Shao et al. 2024), all deliberate:
- Group size is training.grpo_generations (default 4, the paper used 64) and a step sees batch_size completions
  (batch_size // grpo_generations prompts); one policy update per generated batch (num_iterations 1, no reuse).
- No KL term by default (training.grpo_beta = 0, so no reference model); the paper used beta = 0.04. With
  grpo_beta > 0 the reference is the policy as it was when the update began (TRL copies the LoRA adapter into a
  frozen 'ref' adapter, dropped again afterwards), not the initial SFT model of the paper.
- LoRA (training.lora_r) on the sampling model instead of a full fine-tune; on training.device (auto: CUDA when
  present, with bf16 where the GPU supports it; float32 on CPU, use_cpu, no bf16).
- Outcome reward only: SPADE's total (hidden-test pass fraction, difficulty bonus, efficiency, interference and
  format penalties), not a learned reward model; no process supervision.
- Prompts are SPADE's rendered chat text with the opening code fence prefilled; generation stops at EOS or
  max_new_tokens (TRL does not stop at the closing fence as SPADE's sampler does).
- Constant learning rate (no warm-up or decay), gradients clipped to norm 1.0, AdamW kept across updates.
"""

from __future__ import annotations

import itertools
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from spade.config import RewardConfig, SamplingConfig, TrainingConfig
from spade.errors import TrainingError
from spade.policy.prompts import variant_for
from spade.records import Completion, Rollout, Task, UpdateResult
from spade.rollout import Grader
from spade.train.base import UpdateBatch
from spade.train.rft import drop_reference_adapter

GRAD_CLIP = 1.0
_STREAMS: dict[str, GrpoUpdater] = {}


@dataclass(frozen=True, slots=True)
class GrpoStats:
    """UpdateStats' fields (examples = completions scored) plus what the rewards looked like. The losses are
    TRL's surrogate, near 0 on-policy by construction (advantages are centred per group); rewards tell progress."""

    examples: int
    steps: int
    loss_first: float
    loss_last: float
    seconds: float
    mean_reward: float
    pass_rate: float


class TaskStream:
    """The default source of GRPO's prompts: cycles over the tasks of the last `UpdateBatch`, read lazily by the
    trainer."""

    def __init__(self) -> None:
        self.tasks: list[Task] = []
        self._next = 0

    def __call__(self) -> Task:
        task = self.tasks[self._next % len(self.tasks)]
        self._next += 1
        return task


class SandboxReward:
    """TRL reward function over SPADE's one grading path (spade.rollout): extract, screen, execute, reward; returns
    the totals in order and keeps every `Rollout` (for the run's records)."""

    __name__ = "spade_reward"  # TRL names logged reward columns after the function

    def __init__(self, pool: Any, cfg: RewardConfig, tasks: dict[str, Task], model: str = "grpo") -> None:
        self.grader, self.tasks, self.model = Grader(pool, cfg), tasks, model
        self.rollouts: list[Rollout] = []
        self.id_prefix = "grpo"  # candidate ids are '<task_id>:<id_prefix>:<n>'; the loop names the iteration

    def __call__(self, prompts: list[str], completions: list[str], task_id: list[str], **_: Any) -> list[float]:
        tasks = [self.tasks[t] for t in task_id]
        first = len(self.rollouts)
        ids = [f"{t.task_id}:{self.id_prefix}:{first + k}" for k, t in enumerate(tasks)]
        # Empty code goes to the sandbox too: it comes back a no-entry-point verdict, scored as a format failure.
        rollouts = self.grader.grade(tasks, [Completion(c) for c in completions], ids=ids, model=self.model)
        self.rollouts.extend(rollouts)
        return [r.reward.total for r in rollouts]


class GrpoUpdater:
    """Runs GRPO steps on `policy.model` in place. Duck-types `RftTrainer` for checkpoints (prepare, optimizer,
    updates) and for `spade.train.gate.lower_lr`."""

    def __init__(self, policy: Any, training: TrainingConfig, pool: Any, reward: RewardConfig,
                 task_stream: Callable[[], Task] | None = None, sampling: SamplingConfig | None = None, *,
                 seed: int = 0) -> None:
        if training.batch_size % training.grpo_generations:
            raise TrainingError(
                f"training.batch_size = {training.batch_size} must be a multiple of training.grpo_generations = "
                f"{training.grpo_generations} (each prompt's group of completions shares a batch)"
            )
        self.policy, self.config = policy, training
        self.task_stream: Callable[[], Task] = task_stream or TaskStream()
        self.seed = seed  # the LoRA adapter's initial weights are a function of it (see spade.train.rft.with_lora)
        self.sampling = sampling or policy.sampling
        self.tasks: dict[str, Task] = {}
        self.reward = SandboxReward(pool, reward, self.tasks, getattr(policy, "name", "grpo"))
        self.optimizer: Any = None
        self.updates = 0
        self.drawn = 0

    def prepare(self) -> None:
        """Wrap the model with LoRA (once) and build the AdamW that persists across updates; idempotent."""
        if self.optimizer is not None:
            return
        from spade.train.rft import trainable_with_optimizer

        self.optimizer = trainable_with_optimizer(self.policy, self.config, self.seed)

    def update(self, batch: UpdateBatch) -> UpdateResult:
        """The Trainer protocol (spade.train.base): GRPO steps on the batch's tasks (when the stream is a
        TaskStream), answered, graded and kept as rollouts."""
        if batch.tasks and isinstance(self.task_stream, TaskStream):
            self.task_stream.tasks = list(batch.tasks)  # tasks at the controller's current difficulties
        self.reward.rollouts.clear()  # the last update's went out with its result
        self.reward.id_prefix = f"{batch.iteration}:grpo"
        stats = self.run(seed=batch.seed)
        return UpdateResult(method="grpo", examples=stats.examples, steps=stats.steps, loss_first=stats.loss_first,
                            loss_last=stats.loss_last, seconds=stats.seconds, mean_reward=stats.mean_reward,
                            pass_rate=stats.pass_rate, rollouts=tuple(self.reward.rollouts))

    def run(self, steps: int | None = None, *, seed: int = 0) -> GrpoStats:
        """`steps` GRPO steps (default training.steps_per_update), each on freshly generated groups."""
        steps = steps or self.config.steps_per_update
        self.prepare()
        # The policy's name says where it runs ('...:cuda') only once its model has loaded, which prepare() forces.
        self.reward.model = getattr(self.policy, "name", self.reward.model)
        for group in self.optimizer.param_groups:
            group["initial_lr"] = group["lr"]  # TRL's scheduler starts from initial_lr; keep a lowered lr
        first = len(self.reward.rollouts)
        started = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="spade-grpo-") as out:
            _STREAMS[str(id(self))] = self
            trainer = self._trainer(steps, seed, out)
            try:
                trainer.train()
            finally:
                _STREAMS.pop(str(id(self)), None)
                drop_reference_adapter(self.policy.model)  # grpo_beta > 0: TRL's KL reference, made per update
                self.policy.model.eval()
        self.updates += 1
        return self._stats(trainer.state.log_history, self.reward.rollouts[first:], steps,
                           time.perf_counter() - started)

    def _trainer(self, steps: int, seed: int, out: str) -> Any:
        from datasets import IterableDataset
        from transformers import PrinterCallback
        from trl import GRPOConfig, GRPOTrainer

        from spade.policy.device import resolve_device

        args = GRPOConfig(
            output_dir=out, **resolve_device(self.config.device).trainer_args(), report_to=[], save_strategy="no",
            logging_steps=1, disable_tqdm=True, seed=seed, max_steps=steps, learning_rate=self.config.lr,
            lr_scheduler_type="constant", warmup_steps=0, weight_decay=0.0, max_grad_norm=GRAD_CLIP,
            per_device_train_batch_size=self.config.batch_size, gradient_accumulation_steps=1,
            num_generations=self.config.grpo_generations, max_completion_length=self.sampling.max_new_tokens,
            temperature=self.sampling.temperature or 1.0, top_p=self.sampling.top_p, beta=self.config.grpo_beta,
            loss_type="grpo", scale_rewards="group", num_iterations=1, shuffle_dataset=False,
            dataloader_num_workers=0, remove_unused_columns=False,
        )
        # datasets hashes a generator and its arguments (by pickling them); an updater holds a sandbox pool, which
        # cannot be pickled, so the generator finds it through a module-level registry keyed by a plain string.
        stream = IterableDataset.from_generator(_stream_rows, gen_kwargs={"key": str(id(self))})
        trainer = GRPOTrainer(model=self.policy.model, reward_funcs=[self.reward], args=args, train_dataset=stream,
                              processing_class=self.policy.tokenizer, optimizers=(self.optimizer, None))
        trainer.remove_callback(PrinterCallback)  # it prints every log dict; the pipeline reports progress itself
        return trainer

    def _rows(self) -> Iterator[dict[str, str]]:
        """Prompts drawn from the stream only as TRL asks for them (no shuffle buffer reads ahead)."""
        for i in itertools.count():
            task = self.task_stream()
            self.tasks[task.task_id] = task
            self.drawn += 1
            yield {"prompt": self.policy.prompt_text(task, variant_for(i)), "task_id": task.task_id}

    @staticmethod
    def _stats(log: list[dict[str, Any]], rollouts: list[Rollout], steps: int, seconds: float) -> GrpoStats:
        losses = [float(e["loss"]) for e in log if "loss" in e]
        if not rollouts:
            raise TrainingError("GRPO ran no rollouts; check that task_stream returns tasks")
        totals = [r.reward.total for r in rollouts]
        passed = [r.passed for r in rollouts]
        return GrpoStats(
            examples=len(rollouts), steps=steps, loss_first=losses[0] if losses else float("nan"),
            loss_last=losses[-1] if losses else float("nan"), seconds=seconds,
            mean_reward=sum(totals) / len(totals), pass_rate=sum(passed) / len(passed),
        )


def _stream_rows(key: str) -> Iterator[dict[str, str]]:
    yield from _STREAMS[key]._rows()
