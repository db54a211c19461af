"""SPADE inside TRL: a `reward_funcs` callable for `GRPOTrainer` and a dataset that draws tasks live.

In: TRL's reward call `(prompts, completions, completion_ids, **columns)`; the columns are the dataset's
(`task_id`, `ground_truth`, `prompt_variant`). Out: one reward per completion, SPADE's total, graded as `spade run`
grades. With an `Environment`, each call is also reported (one committed iteration), so the controller moves on
TRL's own rollouts and `live_dataset` draws the next prompts at the difficulty it now holds. TRL's dataloader
reads one generation batch ahead, so a move reaches the prompts one or two batches later.
The live dataset never ends, and TRL's default `shuffle_dataset=True` is safe: its `shuffle` reorders rows within
each draw instead of filling a 1,000-row buffer (which would draw, validate and store a thousand tasks at today's
difficulty before the first step). `device_args()` gives the `GRPOConfig` fields that fit this host.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from spade.config import RewardConfig
from spade.env.environment import Environment, Report
from spade.env.grading import Answer, Graded, grade_shared
from spade.groundtruth import task_from_ground_truth
from spade.policy.prompts import ASSISTANT_PREFILL, PROMPT_VARIANTS

try:  # `datasets` comes with the [train] extra; the light install imports this module for SpadeReward alone
    from datasets import IterableDataset as _Iterable
except ImportError:  # pragma: no cover - exercised only without datasets
    _Iterable = object  # type: ignore[assignment,misc]


class SpadeReward:
    """`GRPOTrainer(reward_funcs=[SpadeReward(env)], train_dataset=live_dataset(env), ...)`.

    With `env`, completions are graded on their row's stored `task_id` and reported to the environment. Without
    one, on their row's `ground_truth` (`spade export --format grpo`), recording nothing. Conversational prompts
    end with the generation prompt; text prompts ending with the opening code fence count as prefilled."""

    __name__ = "spade_reward"  # TRL names its logged reward columns after the function

    def __init__(self, env: Environment | None = None, *, model: str = "trl", reward: RewardConfig | None = None
                 ) -> None:
        self.env = env
        self.model = model  # recorded as each candidate's model in the run's audit trail
        self._reward = reward  # without env: None is env SPADE_CONFIG's reward section, else the defaults
        self.last_report: Report | None = None

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], completion_ids: Sequence[Any] | None = None,
                 task_id: Sequence[str] | None = None, ground_truth: Sequence[str] | None = None,
                 prompt_variant: Sequence[int] | None = None, log_metric: Any = None, **_: Any) -> list[float]:
        texts = [_text(c) for c in completions]
        prefilled = bool(prompts) and _prefilled(prompts[0])
        if self.env is not None:
            if task_id is None:
                raise TypeError("SpadeReward(env) needs a `task_id` column in the dataset (live_dataset(env) has one)")
            tokens = [len(ids) for ids in completion_ids] if completion_ids is not None else None
            graded, self.last_report = self.env.step(list(task_id), texts, prefilled=prefilled, model=self.model,
                                                     variants=list(prompt_variant) if prompt_variant else None,
                                                     new_tokens=tokens)
        else:
            if ground_truth is None:
                raise TypeError("SpadeReward() without an environment needs a `ground_truth` column in the dataset "
                                "(spade export --format grpo writes one)")
            answers = [Answer(task_from_ground_truth(gt), t, prefilled) for t, gt in zip(texts, ground_truth, strict=True)]
            graded = grade_shared(answers, self._reward)
        if log_metric is not None and graded:
            _log(log_metric, graded, self.last_report if self.env is not None else None)
        return [g.reward.total for g in graded]


def live_dataset(env: Environment, draw_size: int | None = None) -> Any:
    """A `datasets.IterableDataset` of conversational prompts drawn from `env` as TRL reads them: `draw_size` tasks
    per draw (default generation.tasks_per_iteration), fresh at the controller's current difficulty plus replay.
    Rows: `prompt`, `task_id`, `ground_truth`, `prompt_variant` (rotated, as the loop rotates phrasings). Endless;
    `shuffle(seed=...)` (TRL's default) shuffles within each draw, never reading ahead of the trainer."""
    return _live(env, draw_size, None)


class LiveDataset(_Iterable):  # type: ignore[misc,valid-type]
    """The live stream: an IterableDataset whose shuffle keeps it lazy (see the module's docstring)."""

    _spade: tuple[Environment, int | None]

    def shuffle(self, seed: int | None = None, generator: Any = None, buffer_size: int = 1000) -> LiveDataset:
        env, draw_size = self._spade
        if seed is None:
            seed = int(generator.integers(1 << 31)) if generator is not None else 0
        return _live(env, draw_size, seed)


def _live(env: Environment, draw_size: int | None, seed: int | None) -> LiveDataset:
    from datasets import IterableDataset

    dataset = IterableDataset.from_generator(_rows, gen_kwargs={"env": env, "draw_size": draw_size, "seed": seed})
    dataset.__class__ = LiveDataset  # the same object with a lazy shuffle; datasets offers no constructor hook
    dataset._spade = (env, draw_size)
    return dataset


def device_args() -> dict[str, Any]:
    """`GRPOConfig(..., **device_args())`: CPU training in float32 on a host without CUDA (TRL's bf16 default refuses
    a CPU), bf16 on a GPU that supports it (`spade.policy.device`)."""
    from spade.policy.device import resolve_device

    return resolve_device("auto").trainer_args()


def _rows(env: Environment, draw_size: int | None, seed: int | None = None) -> Iterator[dict[str, Any]]:
    import random

    served = 0
    rng = random.Random(seed) if seed is not None else None
    while True:
        drawn = env.draw_some(draw_size)
        if rng is not None:
            rng.shuffle(drawn)
        for one in drawn:
            yield {**one.row(served % PROMPT_VARIANTS), "prompt_variant": served % PROMPT_VARIANTS}
            served += 1


def _log(log_metric: Any, graded: list[Graded], report: Report | None) -> None:
    log_metric("spade/pass_rate", sum(g.passed for g in graded) / len(graded))
    if report is not None:
        difficulties = [v for k, v in report.metrics.items() if k.startswith("difficulty/")]
        if difficulties:
            log_metric("spade/mean_difficulty", sum(difficulties) / len(difficulties))
        log_metric("spade/decisions", float(len(report.decisions)))


def _text(completion: Any) -> str:
    """TRL's completion: a string, or (conversational) a list of messages whose last is the assistant's."""
    if isinstance(completion, str):
        return completion
    return str(completion[-1]["content"]) if completion else ""


def _prefilled(prompt: Any) -> bool:
    return isinstance(prompt, str) and prompt.endswith(ASSISTANT_PREFILL)
