"""Tool calls: given tool definitions (OpenAI tools format) and a request, answer with the calls to make.

A task's `signature` names the offered simulated tools (simtools.py), comma-separated; `description` is the request;
each test's only argument is a state (the simulated tools' data), its expected value the reference plan's outcome
there: {"answer": the last call's result, "state": the final state}. The answer is a JSON list of
{"name", "arguments"} calls (or OpenAI `tool_calls`, arguments as a JSON string), where the string "$N.path" stands
for a field of call N's result (prompt.py). The judge (judge.py) parses, checks and runs the plan inside the sandbox;
the host compares outcomes (run.py). Validation runs the reference and its wrong-call mutants (validate.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from spade.kinds import register
from spade.kinds.base import Prompt, Scorer
from spade.kinds.tool_call import families  # noqa: F401  (registers the families)
from spade.kinds.tool_call.prompt import build_prompt, extract_plan
from spade.records import ExecResult, Task, TaskDraft

if TYPE_CHECKING:
    from spade.config import GenerationConfig
    from spade.validate.outcome import ValidationOutcome

NAME = "tool_call"
_CREDENTIALS = re.compile(r"\.ssh\b|/etc/shadow|/etc/passwd|/etc/sudoers|\.aws\b|id_rsa|id_ed25519|\.netrc"
                          r"|\.git-credentials|/proc/self/environ", re.IGNORECASE)


class ToolCall:
    name = NAME

    def prompt(self, task: Task, variant: int) -> Prompt:
        return build_prompt(task, variant)

    def extract(self, task: Task, completion: str, *, prefilled: bool = True) -> str:
        return extract_plan(completion, prefilled=prefilled)

    def screen(self, answer: str) -> tuple[str, ...]:
        """A call asking a (simulated) tool for a credential path is recorded; nothing is ever read."""
        return ("credentials",) if _CREDENTIALS.search(answer[:20_000]) else ()

    def execute(self, pool: Scorer, items: Sequence[tuple[Task, str]],
                on_done: Callable[[int], None] | None = None) -> list[ExecResult]:
        from spade.kinds.tool_call.run import execute

        return execute(pool, items, on_done)

    def validate(self, tasks: Sequence[Task], pool: Scorer | None, cfg: GenerationConfig) -> list[ValidationOutcome]:
        from spade.kinds.tool_call.validate import validate

        return validate(tasks, pool, cfg)

    def validate_drafts(self, drafts: Sequence[TaskDraft], pool: Scorer,
                        cfg: GenerationConfig) -> list[ValidationOutcome]:
        from spade.kinds.tool_call.validate import validate_drafts

        return validate_drafts(drafts, pool, cfg)


KIND = register(ToolCall())
