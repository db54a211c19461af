"""A family built as a menu of operations, each available from a difficulty level upward.

In: a difficulty and a Random. Out: a Variant whose op is one of the menu's hardest ops the difficulty
allows, with names and wording drawn from the op's alternatives. Templates use `$name` for the entry
point, `$a0`, `$a1`… for the parameters and `$knob` for each knob the op draws.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from string import Template
from typing import Any

from spade.generate.family import Family, Variant

Knobs = dict[str, Any]
KnobMaker = Callable[[float, random.Random], Knobs]
InputMaker = Callable[[Mapping[str, Any], random.Random], list[Any]]
EdgeMaker = Callable[[Mapping[str, Any]], list[list[Any]]]

# Ops more than this far below the difficulty are skipped, so hard settings do not serve easy tasks.
LEVEL_WINDOW = 0.3


def no_knobs(difficulty: float, rng: random.Random) -> Knobs:
    return {}


def no_edges(knobs: Mapping[str, Any]) -> list[list[Any]]:
    return []


def span(difficulty: float, low: int, high: int) -> int:
    """An integer size that grows linearly from `low` at difficulty 0 to `high` at difficulty 1."""
    return low + round((high - low) * min(max(difficulty, 0.0), 1.0))


@dataclass(frozen=True, slots=True)
class Op:
    """One operation of a menu family. `body` is the reference's body, indented four spaces."""

    key: str
    level: float
    names: tuple[str, ...]
    params: tuple[tuple[str, ...], ...]
    signature: str
    descriptions: tuple[str, ...]
    body: str
    gen: InputMaker
    knobs: KnobMaker = no_knobs
    edges: EdgeMaker = no_edges


class MenuFamily(Family):
    """A Family whose variants are the ops of a menu, filled in with drawn names, wording and knobs."""

    def __init__(self, name: str, tags: tuple[str, ...], ops: tuple[Op, ...]) -> None:
        if not any(op.level == 0.0 for op in ops):
            raise ValueError(f"family '{name}' needs at least one op at level 0.0 so difficulty 0 has a task")
        keys = [op.key for op in ops]
        if len(set(keys)) != len(keys):
            raise ValueError(f"family '{name}' has duplicate op keys: {keys}")
        for op in ops:
            _check_names(name, op)
        self.name = name
        self.tags = tags
        self.ops = ops
        self._by_key = {op.key: op for op in ops}

    def variant(self, difficulty: float, rng: random.Random) -> Variant:
        op = rng.choice(self._ops_for(difficulty))
        knobs: Knobs = {"op": op.key, **op.knobs(difficulty, rng)}
        words: dict[str, Any] = {"name": rng.choice(op.names)}
        taken: set[str] = set()
        for i, choices in enumerate(op.params):
            free = [c for c in choices if c not in taken] or list(choices)
            words[f"a{i}"] = rng.choice(free)
            taken.add(words[f"a{i}"])
        fill = {**knobs, **words}
        signature = Template(op.signature).substitute(fill)
        return Variant(
            description=Template(rng.choice(op.descriptions)).substitute(fill),
            signature=signature,
            entry_point=words["name"],
            reference=signature + "\n" + Template(op.body).substitute(fill).rstrip() + "\n",
            knobs=knobs,
        )

    def random_input(self, knobs: Mapping[str, Any], rng: random.Random) -> list[Any]:
        return self._op(knobs).gen(knobs, rng)

    def edge_inputs(self, knobs: Mapping[str, Any]) -> list[list[Any]]:
        return self._op(knobs).edges(knobs)

    def _ops_for(self, difficulty: float) -> list[Op]:
        allowed = [op for op in self.ops if op.level <= difficulty + 1e-9]
        top = max(op.level for op in allowed)
        return [op for op in allowed if op.level >= min(top, difficulty - LEVEL_WINDOW)]

    def _op(self, knobs: Mapping[str, Any]) -> Op:
        return self._by_key[knobs["op"]]


def _check_names(family: str, op: Op) -> None:
    # A parameter name that is also a local of the body would silently change the reference's meaning.
    body_names = set(re.findall(r"\b[A-Za-z_]\w*\b", re.sub(r"\$\w+", " ", op.body)))
    for choices in op.params:
        for clash in sorted(set(choices) & (body_names | set(op.names))):
            raise ValueError(f"family '{family}' op '{op.key}': parameter name '{clash}' clashes with a name in the body")
