"""Repair drafts of any validated Python function task (a task file's, a converted benchmark's, the store's): every
such task yields repair tasks, as the families' drafts do for procedural ones.

In: a Python function Task with a reference solution, a difficulty, a seed and an index. Out: a repair TaskDraft
with the task's own tests as inputs (public stay public) and candidate bugs of the reference; validation
(spade.kinds.validate_drafts) then runs it exactly as it runs a repair family's draft. A pure function of
(task, difficulty, seed, index).
"""

from __future__ import annotations

import hashlib
import json
import random

from spade.kinds.repair.bugs import bugs
from spade.kinds.repair.families import SHOW_LINES_BELOW
from spade.kinds.repair.name import REPAIR
from spade.records import PYTHON_FUNCTION, Task, TaskDraft

CANDIDATES = 8


def bug_count(difficulty: float) -> int:
    return 1 if difficulty < 0.5 else 2 if difficulty < 0.85 else 3


def repair_draft(task: Task, difficulty: float, seed: int, index: int) -> TaskDraft:
    """A repair draft of `task` with bug_count(difficulty) bugs (fewer when its reference has too few places)."""
    if task.kind != PYTHON_FUNCTION or not task.reference_solution:
        raise ValueError(f"task {task.task_id}: repair drafts are made from Python function tasks with a "
                         "reference_solution (the code the bugs go into)")
    if "check" in task.provenance:
        raise ValueError(f"task {task.task_id} is graded by its own check(), not by tests: no failing test to show")
    d = round(min(max(float(difficulty), 0.0), 1.0), 4)
    rng = random.Random(f"spade-repair|{task.task_id}|{d}|{seed}|{index}")
    count = bug_count(d)
    found = []
    while count >= 1 and not found:
        found = bugs(task.reference_solution, count, None, rng, CANDIDATES)
        count -= 0 if found else 1
    if not found:
        raise ValueError(f"task {task.task_id}: its reference has no place to put a bug in")
    candidates = [b.to_json() for b in found]
    content = json.dumps([task.task_id, d, seed, index, candidates])
    provenance = {"source": "repair", "seed_task": task.task_id, "seed": seed, "index": index}
    if isinstance(task.provenance.get("prompt"), str):
        provenance["prompt"] = task.provenance["prompt"]  # a converted task's imports and helpers, for grading
    return TaskDraft(
        task_id=f"{task.task_id}~repair-{hashlib.sha256(content.encode()).hexdigest()[:10]}",
        description=task.description, signature=task.signature, entry_point=task.entry_point, difficulty=d,
        tags=(*task.tags, REPAIR), public_inputs=tuple(t.args for t in task.test_cases),
        hidden_inputs=tuple(t.args for t in task.hidden_test_cases), reference_solution=task.reference_solution,
        params={"seed_task": task.task_id, "bugs": count, "target_fail_share": round(1.0 - 0.7 * d, 4),
                "show_bug_lines": d < SHOW_LINES_BELOW, "candidates": candidates},
        provenance=provenance, kind=REPAIR,
    )
