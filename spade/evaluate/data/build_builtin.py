"""Write builtin.jsonl from the hand-written definitions, expected values computed in the sandbox.

In: the TASKS lists of builtin_easy, builtin_medium and builtin_algorithms. Out: one task per line in the
task schema (docs/method.md#task-schema), tagged 'eval' plus topic and level tags. Run after editing a definition:
    python -m spade.evaluate.data.build_builtin
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from spade.config import ExecutorConfig
from spade.evaluate.data import builtin_algorithms, builtin_easy, builtin_medium
from spade.sandbox import Job, SandboxPool, to_json_value

OUT_PATH = Path(__file__).with_name("builtin.jsonl")
# Generous: references are tiny; the limit only guards against a definition that loops forever.
_TIME_LIMIT_S = 5.0


def specs() -> list[dict[str, Any]]:
    """Every definition, easy first; ids are 'builtin/<name>'."""
    return builtin_easy.TASKS + builtin_medium.TASKS + builtin_algorithms.TASKS


def level_of(difficulty: float) -> str:
    """The level tag that lets a report split pass@k by difficulty."""
    return "easy" if difficulty < 0.3 else "medium" if difficulty < 0.5 else "hard"


def expected_values(pool: SandboxPool, spec: dict[str, Any]) -> list[Any]:
    """The reference's return value for every public then hidden input, run in the sandbox."""
    inputs = tuple(tuple(args) for args in spec["public"] + spec["hidden"])
    job = Job(
        code=spec["reference"],
        entry_point=spec["name"],
        inputs=inputs,
        time_limits=(_TIME_LIMIT_S,) * len(inputs),
        memory_bytes=ExecutorConfig().memory_bytes,
        total_timeout=_TIME_LIMIT_S * len(inputs),
    )
    run = pool.run(job)
    if not run.all_returned:
        # A definition bug: fix the reference or the inputs, do not ship a task without its expected values.
        raise RuntimeError(f"reference of {spec['name']} did not return on every input: {run}")
    return [to_json_value(v) for v in run.values]


def task_record(spec: dict[str, Any], expected: list[Any]) -> dict[str, Any]:
    """The schema dict of one definition given its reference's outputs."""
    n_public = len(spec["public"])
    cases = [{"input": list(args), "expected": value} for args, value in zip(spec["public"] + spec["hidden"], expected)]
    return {
        "task_id": f"builtin/{spec['name']}",
        "description": spec["description"],
        "signature": spec["signature"],
        "entry_point": spec["name"],
        "difficulty": spec["difficulty"],
        "tags": ["eval", level_of(spec["difficulty"]), *spec["tags"]],
        "test_cases": cases[:n_public],
        "hidden_test_cases": cases[n_public:],
        "reference_solution": spec["reference"],
        "provenance": {"source": "spade-builtin", "author": "hand-written"},
    }


def build(pool: SandboxPool) -> list[dict[str, Any]]:
    """Every task record, expected values from the sandbox."""
    return [task_record(spec, expected_values(pool, spec)) for spec in specs()]


def main() -> None:
    with SandboxPool(ExecutorConfig()) as pool:
        records = build(pool)
    OUT_PATH.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    print(f"wrote {len(records)} tasks to {OUT_PATH}")


if __name__ == "__main__":
    main()
