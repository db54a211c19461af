"""SPADE's families through reasoning-gym's API: `create_dataset(name, size, seed, **knobs)` and `score_answer`.

In: a family's name (`spade families` lists them), a size, a seed >= 0 and knobs (difficulty, public_tests,
hidden_tests). Out: a `Dataset` of `size` entries `{"question", "answer", "metadata"}`, each a task validated as the
loop validates one (expected values from running the reference in the sandbox; a rejected draw is replaced by the
next). `score_answer(answer, entry)` grades a reply on the loop's grading path in SPADE's sandbox (the process's
shared pool, configured by env SPADE_CONFIG): 1.0 when every test passes, else the share of tests passed.
The same (name, size, seed, knobs) make the same entries.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from spade.errors import ConfigError

KNOBS: dict[str, float | int] = {"difficulty": 0.5, "public_tests": 3, "hidden_tests": 5}
"""What create_dataset takes, with its defaults (the tests' counts are generation.public_tests / hidden_tests')."""
_DRAWS_PER_ENTRY = 4  # draws allowed per entry before a family that rejects most of its drafts is refused


@dataclass(frozen=True)
class Dataset:
    """`size` validated tasks of one family; indexable and iterable like a reasoning-gym dataset."""

    name: str
    size: int
    seed: int
    config: dict[str, float | int]
    entries: tuple[dict[str, Any], ...] = field(repr=False)

    def __len__(self) -> int:
        return len(self.entries)

    def __getitem__(self, index: int) -> dict[str, Any]:
        return self.entries[index]

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.entries)

    def score_answer(self, answer: str | None, entry: dict[str, Any]) -> float:
        return score_answer(answer, entry)


def create_dataset(name: str, size: int = 100, seed: int = 0, **knobs: float | int) -> Dataset:
    """`size` tasks of family `name`, drawn at knobs['difficulty'] by (seed, index) and validated in the sandbox."""
    from spade.env.grading import shared_pool
    from spade.generate.procedural import draft_task
    from spade.generate.registry import get_family
    from spade.kinds import validate_drafts

    config = _knobs(knobs)
    if not (isinstance(size, int) and size >= 1) or not (isinstance(seed, int) and seed >= 0):
        raise ConfigError(f"create_dataset({name!r}, size={size!r}, seed={seed!r}): give an integer size >= 1 and "
                          "seed >= 0 (negative seeds are the held-out suite's)")
    family = get_family(name)
    pool, cfg = shared_pool()
    entries: list[dict[str, Any]] = []
    index = 0
    while len(entries) < size:
        if index >= _DRAWS_PER_ENTRY * size + 8:
            raise ConfigError(f"family {name!r} gave {len(entries)} valid tasks in {index} draws at difficulty "
                              f"{config['difficulty']}; try another difficulty or family")
        batch = [draft_task(family, float(config["difficulty"]), seed, i, int(config["public_tests"]),
                            int(config["hidden_tests"])) for i in range(index, index + size - len(entries))]
        index += len(batch)
        for outcome, draft in zip(validate_drafts(batch, pool, cfg.generation), batch):
            if outcome.accepted and outcome.task is not None:
                entries.append(_entry(outcome.task, name, draft.provenance["index"]))
    return Dataset(name, size, seed, config, tuple(entries))


def score_answer(answer: str | None, entry: dict[str, Any]) -> float:
    """The reply `answer` to `entry`'s question, graded in the sandbox: 1.0 when it passes every test, else the
    share of the task's tests (public and hidden) it passes; 0.0 for no answer or one the sandbox refused."""
    from spade.env.grading import Answer, grade, shared_pool
    from spade.taskio import task_from_dict

    if not answer:
        return 0.0
    task = task_from_dict(entry["metadata"]["task"], where="entry['metadata']['task']")
    pool, cfg = shared_pool()
    result = grade(pool, cfg.reward, [Answer(task, answer, prefilled=False)])[0].result
    if result.passed:
        return 1.0
    return result.score if result.score < 1.0 else 0.0  # every test ran but the run broke a rule: not a pass


def gold_answer(task: Any) -> str:
    """A reply that passes `task`: its reference, or for predicting a value or an input of a shown program
    (code_reasoning's deduction and abduction) the assertion line the question asks for, true by its tests."""
    from spade.kinds.code_reasoning.prompt import ABDUCTION, DEDUCTION, call_text, mode_of

    if task.kind == "code_reasoning" and mode_of(task) in (DEDUCTION, ABDUCTION) and task.test_cases:
        query = task.test_cases[0]
        return f"assert {call_text(task.entry_point, tuple(query.args))} == {query.expected!r}"
    return task.reference_solution or ""


def _knobs(knobs: dict[str, Any]) -> dict[str, float | int]:
    unknown = sorted(set(knobs) - set(KNOBS))
    if unknown:
        raise ConfigError(f"create_dataset: unknown knob {unknown[0]!r}; the knobs are {', '.join(KNOBS)} (a "
                          "family's own knobs follow from difficulty: `spade families` lists them)")
    config = {**KNOBS, **knobs}
    d = config["difficulty"]
    if not (isinstance(d, (int, float)) and math.isfinite(d) and 0 <= d <= 1):
        raise ConfigError(f"create_dataset: difficulty = {d!r}; give a number in [0, 1]")
    for key, top in (("public_tests", 100), ("hidden_tests", 1000)):
        if not (isinstance(config[key], int) and 1 <= config[key] <= top):
            raise ConfigError(f"create_dataset: {key} = {config[key]!r}; give an integer in [1, {top}]")
    return config


def _entry(task: Any, name: str, index: int) -> dict[str, Any]:
    from spade.kinds import kind_of
    from spade.taskio import task_to_dict

    messages = kind_of(task).prompt(task, 0).messages
    return {"question": messages[-1]["content"], "answer": gold_answer(task),
            "metadata": {"source_dataset": name, "source_index": index, "kind": task.kind,
                         "difficulty": task.difficulty, "knobs": dict(task.params),
                         "messages": [dict(m) for m in messages], "task": task_to_dict(task)}}
