"""What the structured families share: the document format by difficulty, rendering a document in it, the
schema shown or not, and the family base (a variant's checks live in its knobs; tests draw from them)."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from typing import Any

from spade.generate.family import Family

FORMAT_NAMES = {"json": "JSON", "yaml": "YAML"}


def pick_format(difficulty: float, rng: random.Random) -> str:
    """JSON when easy, YAML when hard, either in between."""
    if difficulty < 0.35:
        return "json"
    if difficulty > 0.65:
        return "yaml"
    return rng.choice(("json", "yaml"))


def render(data: Any, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(data, indent=2) + "\n"
    import yaml

    return yaml.safe_dump(data, sort_keys=False, default_flow_style=False)


def schema_block(schema: dict[str, Any], show: bool) -> str:
    if not show:
        return ""
    return "\n\nThe document must conform to this JSON Schema:\n" + json.dumps(schema, indent=1)


def signature(fmt: str) -> str:
    return f"a {FORMAT_NAMES[fmt]} document"


class CheckFamily(Family):
    """A family whose tests are drawn from the variant's check groups. knobs['checks']: what the description states
    outright; knobs['implied']: the schema first, then the constraints the description only implies (orders,
    budgets, cross-field rules). Edge tests, which the hidden tests take first, are the schema and all implied
    constraints in one group, so every task checks both whatever the test counts; random tests draw single groups
    (stated or implied, never the schema) for a finer score."""

    kind = "structured"

    def random_input(self, knobs: Mapping[str, Any], rng: random.Random) -> list[Any]:
        return [rng.choice(list(knobs["checks"]) + list(knobs["implied"][1:]))]

    def edge_inputs(self, knobs: Mapping[str, Any]) -> list[list[Any]]:
        schema, *implied = knobs["implied"]
        if len(implied) > 1:
            implied = [{"op": "all", "checks": implied}, *implied]
        return [[schema]] + [[c] for c in implied]
