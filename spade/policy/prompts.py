"""The prompt a policy sends for a task: its kind's chat prompt (spade.kinds), rendered with a tokenizer's chat
template. In: a Task and a variant index. Out: a `Prompt`, or the exact text an embedded model continues.
"""

from __future__ import annotations

from typing import Any, Protocol

from spade.kinds import kind_of
from spade.kinds.base import Prompt, prompt_hash
from spade.kinds.python_function.prompt import (
    ASSISTANT_PREFILL,
    FENCE_CLOSE,
    PROMPT_VARIANTS,
    variant_for,
)
from spade.records import Task

__all__ = ["ASSISTANT_PREFILL", "FENCE_CLOSE", "PROMPT_VARIANTS", "Prompt", "build_prompt", "prompt_hash",
           "render_chat", "variant_for"]


class ChatTokenizer(Protocol):
    def apply_chat_template(self, conversation: Any, **kwargs: Any) -> Any: ...


def build_prompt(task: Task, variant: int = 0) -> Prompt:
    """The prompt for `task` in phrasing `variant`, as its kind shows it."""
    return kind_of(task).prompt(task, variant)


def render_chat(tokenizer: ChatTokenizer, prompt: Prompt) -> str:
    """The exact text the model continues: the chat template with a generation prompt, then the prefill."""
    head = tokenizer.apply_chat_template(list(prompt.messages), tokenize=False, add_generation_prompt=True)
    return str(head) + prompt.prefill
