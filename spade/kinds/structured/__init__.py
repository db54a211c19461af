"""The structured kind: write a JSON or YAML document (a service config, a firewall policy, a job queue...) that
satisfies a spec; judged by parsing it and running SPADE's own checks inside the sandbox.

Task fields: `entry_point` is the document format (json or yaml), `signature` says so in words, `description`
states the requirements (with the JSON Schema or not, by difficulty), each test's only argument is one check
(judge/checks.py: a schema, a constraint, or a query such as the action a packet meets) and `expected` is the
check's value on the reference (true for constraints), `reference_solution` is the reference document.
Prompt (prompt.py), extraction (extract.py), execution (execute.py: one sandbox job per answer, judge/ as its
files), validation (validate.py: reference judged, corrupted copies caught), families (families/).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from spade.kinds import register
from spade.kinds.base import Prompt, Scorer
from spade.kinds.structured import families  # noqa: F401  (registers the structured families)
from spade.kinds.structured.execute import document_format, execute
from spade.kinds.structured.extract import extract_document
from spade.kinds.structured.prompt import build_prompt, prefill
from spade.records import ExecResult, Task, TaskDraft

if TYPE_CHECKING:
    from spade.config import GenerationConfig
    from spade.validate.outcome import ValidationOutcome

STRUCTURED = "structured"


class Structured:
    name = STRUCTURED

    def prompt(self, task: Task, variant: int) -> Prompt:
        return build_prompt(task, variant)

    def extract(self, task: Task, completion: str, *, prefilled: bool = True) -> str:
        return extract_document(completion, document_format(task), prefill(task) if prefilled else "")

    def screen(self, answer: str) -> tuple[str, ...]:
        return ()  # a document runs no code: the judge parses it with YAML's safe loader, under bounds

    def execute(self, pool: Scorer, items: Sequence[tuple[Task, str]],
                on_done: Callable[[int], None] | None = None) -> list[ExecResult]:
        return execute(pool, items, on_done)

    def validate(self, tasks: Sequence[Task], pool: Scorer | None, cfg: GenerationConfig) -> list[ValidationOutcome]:
        from spade.kinds.structured.validate import validate_tasks

        return validate_tasks(tasks, pool, cfg)

    def validate_drafts(self, drafts: Sequence[TaskDraft], pool: Scorer,
                        cfg: GenerationConfig) -> list[ValidationOutcome]:
        from spade.kinds.structured.validate import validate_drafts

        return validate_drafts(drafts, pool, cfg)


KIND = register(Structured())
