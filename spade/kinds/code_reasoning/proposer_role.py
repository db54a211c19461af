"""The proposer role: the policy, under this prompt, writes a new small function f and calls it on a few inputs.

A proposer prompt is a Task of kind 'code_reasoning_proposer' whose params hold everything the prompt shows (the
earlier proposals given as examples and the size asked for), so sampling and training render the same text from
the stored task. The answer is prefilled with `def f(` and ends with the fenced block, a shape the embedded 135M
model manages: a function, then `print(f(...))` lines whose calls are the inputs. Parsing is
spade.selfplay.proposal's; these prompts are never graded (execute refuses them), only their proposals are.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from spade.kinds import register
from spade.kinds.base import Prompt, Scorer, prompt_hash
from spade.kinds.code_reasoning.judge import unanswered
from spade.records import ExecResult, Task, TaskDraft
from spade.validate.outcome import Problem, ValidationOutcome

if TYPE_CHECKING:
    from spade.config import GenerationConfig

PROPOSER = "code_reasoning_proposer"
PREFILL = "```python\ndef f("
MAX_COMPLETION_CHARS = 4000
BUILTIN_EXAMPLES = (
    "def f(xs):\n    total = 0\n    for x in xs:\n        if x % 2 == 0:\n            total += x\n    return total\n\n"
    "print(f([1, 2, 3, 4]))\nprint(f([5, 6]))\nprint(f([]))\n",
    "def f(s, n):\n    return (s[::-1] + '!') * n\n\nprint(f('abc', 2))\nprint(f('hi', 1))\nprint(f('', 3))\n",
)
_SYSTEM = "You write small, new Python puzzles: a short function f and a few calls of it."


def ask(lines: int) -> str:
    return (f"Write a new Python function f of about {lines} lines that takes numbers, strings or lists and returns "
            "a number, a string or a list. It must not print, read input or use randomness. Then print f on three "
            "different inputs. Make it different from the earlier ones.")


def proposer_task(task_id: str, difficulty: float, examples: Sequence[str], mode: str) -> Task:
    """The proposer prompt as a task: the first of `examples` (an earlier proposal: program and calls), else a
    built-in one, is shown as an earlier answer."""
    builtin = BUILTIN_EXAMPLES[sum(map(ord, task_id)) % len(BUILTIN_EXAMPLES)]
    shown = [e for e in examples if isinstance(e, str)][:1] or [builtin]  # one: the prompt stays short to train on
    return Task(task_id, ask(lines_for(difficulty)), "def f(...)", "f", difficulty, ("proposer",),
                params={"examples": shown, "mode": mode}, provenance={"source": "proposer_role"}, kind=PROPOSER)


def lines_for(difficulty: float) -> int:
    return 2 + round(6 * min(max(difficulty, 0.0), 1.0))


def build_prompt(task: Task, variant: int = 0) -> Prompt:
    messages: tuple[dict[str, str], ...] = ({"role": "system", "content": _SYSTEM},)
    for example in task.params.get("examples", ())[:1]:
        messages += ({"role": "user", "content": ask(lines_for(task.difficulty))},
                     {"role": "assistant", "content": f"```python\n{example.rstrip()}\n```"})
    messages += ({"role": "user", "content": task.description},)
    # "fence", not "code": the rule "code" waits for a `def` after the prefill, and this prefill holds it.
    return Prompt(messages, PREFILL, 0, prompt_hash(messages, PREFILL), stop="fence")


class ProposerRole:
    name = PROPOSER

    def prompt(self, task: Task, variant: int) -> Prompt:
        return build_prompt(task, variant)

    def extract(self, task: Task, completion: str, *, prefilled: bool = True) -> str:
        return ((PREFILL if prefilled else "") + completion)[:MAX_COMPLETION_CHARS]

    def screen(self, answer: str) -> tuple[str, ...]:
        return ()

    def execute(self, pool: Scorer, items: Sequence[tuple[Task, str]],
                on_done: Callable[[int], None] | None = None) -> list[ExecResult]:
        return [unanswered("a proposer prompt is not graded; its proposal is") for _ in items]

    def validate(self, tasks: Sequence[Task], pool: Scorer | None, cfg: GenerationConfig) -> list[ValidationOutcome]:
        return [ValidationOutcome.rejected(t.task_id, [Problem("proposer_prompt", "a proposer prompt is not a task")])
                for t in tasks]

    def validate_drafts(self, drafts: Sequence[TaskDraft], pool: Scorer,
                        cfg: GenerationConfig) -> list[ValidationOutcome]:
        return [ValidationOutcome.rejected(d.task_id, [Problem("proposer_prompt", "a proposer prompt is not a task")])
                for d in drafts]


KIND = register(ProposerRole())
