"""The one grading path: (task, completion) -> `Rollout`, for the loop, GRPO, the evaluator and the exported
reward functions alike.

In: tasks and their completions (or answers already taken from them), a sandbox pool and the reward config.
Out: one `Rollout` each, in order: the answer the task's kind extracts, the screen's findings (added to the
verdict's events as 'screen:<code>', so the interference term sees them), the kind's executed and judged verdict,
and the reward. An answer's failure of any kind is data; only our own bugs raise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from spade.audit import audit_result
from spade.config import RewardConfig
from spade.kinds import KINDS, Scorer, group_by_kind, kind_of
from spade.records import Candidate, Completion, ExecResult, Rollout, Task
from spade.reward import compute_reward
from spade.untrusted import MAX_COMPLETION_BYTES, clean, clip_ends, over

OnDone = Callable[[int], None]


class Grader:
    """Grades answers in a sandbox pool with one reward config; holds no other state."""

    def __init__(self, pool: Scorer, reward: RewardConfig) -> None:
        self.pool, self.reward = pool, reward

    def grade(self, tasks: Sequence[Task], completions: Sequence[Completion], *, ids: Sequence[str],
              model: str = "", prefilled: bool = True, on_done: OnDone | None = None) -> list[Rollout]:
        """Extract each completion's answer (`prefilled`: it continues after the prompt's prefill), then grade it.
        `ids` name the candidates (one per completion)."""
        texts = [clip_ends(c.text, MAX_COMPLETION_BYTES) for c in completions]  # one budget before any extractor
        candidates = [
            Candidate(candidate_id=cid, task_id=task.task_id, completion=text,
                      code=kind_of(task).extract(task, text, prefilled=prefilled), model=model,
                      prompt_hash=c.prompt_hash, prompt_variant=c.prompt_variant, new_tokens=c.new_tokens)
            for task, c, text, cid in zip(tasks, completions, texts, ids, strict=True)
        ]
        return self.grade_candidates(tasks, candidates, on_done=on_done)

    def grade_candidates(self, tasks: Sequence[Task], candidates: Sequence[Candidate], *,
                         on_done: OnDone | None = None) -> list[Rollout]:
        """Screen, execute and reward candidates whose answer (`code`) is already extracted. An answer over
        MAX_COMPLETION_BYTES is not run (a format failure, as no answer is); lone surrogates become U+FFFD."""
        candidates = [replace(c, code="" if over(c.code, MAX_COMPLETION_BYTES) else clean(c.code)) for c in candidates]
        findings = [kind_of(t).screen(c.code) for t, c in zip(tasks, candidates, strict=True)]  # before it runs
        results = execute(self.pool, [(t, c.code) for t, c in zip(tasks, candidates)], on_done)
        rollouts = []
        for task, cand, found, result in zip(tasks, candidates, findings, results):
            if found:
                result = replace(result, events=result.events + tuple(f"screen:{f}" for f in found))
            rollouts.append(Rollout(cand, result, compute_reward(task, cand.code, result, self.reward), found))
        return rollouts


def execute(pool: Scorer, items: Sequence[tuple[Task, str]], on_done: OnDone | None = None) -> list[ExecResult]:
    """Every (task, answer) run and judged by its task's kind, results in order; on_done(i) as each finishes."""
    results: list[ExecResult | None] = [None] * len(items)
    for name, indices in group_by_kind([t for t, _ in items]).items():
        done = None if on_done is None else (lambda j, indices=indices: on_done(indices[j]))
        for i, result in zip(indices, KINDS.get(name).execute(pool, [items[i] for i in indices], done), strict=True):
            results[i] = result
    return [r for r in results if r is not None]


def audit_line(rollout: Rollout) -> str:
    """The audit table's result for a graded candidate: its status, screen findings and sandbox events."""
    return audit_result(rollout.result.status.value, rollout.findings, rollout.result.events)
