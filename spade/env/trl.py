"""SPADE inside TRL: a `reward_funcs` callable for `GRPOTrainer`.

In: TRL's call `(prompts, completions, **columns)`, where the columns are the dataset's (`ground_truth` from
`spade export --format grpo`). Out: one reward per completion, SPADE's total, graded as `spade run` grades.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from spade.config import RewardConfig
from spade.env.grading import Answer, Graded, grade_shared
from spade.export.truth import task_from_ground_truth
from spade.policy.prompts import ASSISTANT_PREFILL


class SpadeReward:
    """`GRPOTrainer(reward_funcs=[SpadeReward()], ...)`: grades each completion on its row's `ground_truth`.
    Conversational prompts end with the generation prompt (not inside a fence); text prompts that end with the
    opening fence count as prefilled."""

    __name__ = "spade_reward"  # TRL names its logged reward columns after the function

    def __init__(self, reward: RewardConfig | None = None) -> None:
        self._reward = reward  # None: the reward section of env SPADE_CONFIG's YAML, else the defaults

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], ground_truth: Sequence[str] | None = None,
                 log_metric: Any = None, **_: Any) -> list[float]:
        if ground_truth is None:
            raise TypeError("SpadeReward needs a `ground_truth` column in the dataset (spade export --format grpo)")
        answers = [Answer(task_from_ground_truth(gt), _text(c), prefilled=_prefilled(p))
                   for p, c, gt in zip(prompts, completions, ground_truth, strict=True)]
        graded = self.grade(answers)
        if log_metric is not None and graded:
            log_metric("spade/pass_rate", sum(g.passed for g in graded) / len(graded))
        return [g.reward.total for g in graded]

    def grade(self, answers: list[Answer]) -> list[Graded]:
        return grade_shared(answers, self._reward)


def _text(completion: Any) -> str:
    """TRL's completion: a string, or (conversational) a list of messages whose last is the assistant's."""
    if isinstance(completion, str):
        return completion
    return str(completion[-1]["content"]) if completion else ""


def _prefilled(prompt: Any) -> bool:
    return isinstance(prompt, str) and prompt.endswith(ASSISTANT_PREFILL)
