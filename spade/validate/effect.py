"""A rule for composed variants (spade.generate.compose): the composed step must change the seed's answer on at
least one test, else the variant tests nothing new and is rejected as transform_no_effect. Applied wherever composed
variants are made (`spade variants` and the loop's composed retries).

In: validation outcomes, the seed tasks by id, a sandbox pool. Out: the outcomes, composed ones re-judged.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from spade.config import GenerationConfig
from spade.records import Task
from spade.validate.outcome import Problem, ValidationOutcome

if TYPE_CHECKING:
    from spade.sandbox import SandboxPool


def require_effect(outcomes: list[ValidationOutcome], seeds: Mapping[str, Task], pool: SandboxPool,
                   cfg: GenerationConfig) -> list[ValidationOutcome]:
    """Reject accepted composed variants whose every expected value is what the seed's own reference returns on
    that input: the composed step then changes nothing the tests can see. Both sides come from the sandbox."""
    from spade.sandbox import Job, OutcomeKind, values_equal

    composed = [o for o in outcomes if o.accepted and o.task is not None and "transform" in o.task.params]
    runs = {}
    for o in composed:
        seed, tests = seeds[o.task.params["seed_task"]], o.task.all_tests
        runs[o.task_id] = pool.submit(Job(
            code=seed.reference_solution, entry_point=seed.entry_point, inputs=tuple(tuple(c.args) for c in tests),
            time_limits=(cfg.reference_time_limit_s,) * len(tests), memory_bytes=pool.cfg.memory_bytes,
            total_timeout=cfg.reference_time_limit_s * len(tests) + 1.0, max_output_bytes=pool.cfg.max_output_bytes))
    result = []
    for o in outcomes:
        if o.task_id in runs:
            run, tests = runs[o.task_id].result(), o.task.all_tests
            same = run.load_status is None and all(
                r.kind is OutcomeKind.VALUE and values_equal(r.value, c.expected) for r, c in zip(run.outcomes, tests))
            if same:
                key = o.task.params["transform"]["key"]
                o = ValidationOutcome.rejected(o.task_id, [Problem(
                    "transform_no_effect", f"on all {len(tests)} tests the composed step '{key}' leaves the seed's "
                    "answer unchanged, so the variant tests nothing new")], o.kill_ratio)
        result.append(o)
    return result
