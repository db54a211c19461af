"""What the structured families share: the document format by difficulty, rendering a document in it, the
schema shown or not, the template shown or not (a document of the schema's shape with placeholder values, which
a small model can fill in), and the family base (a variant's checks live in its knobs; tests draw from them)."""

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
    return "\n\nThe document must conform to this JSON Schema:\n" + compact(schema)


def compact(schema: dict[str, Any]) -> str:
    """The schema on one line: a small model copies an indented JSON block it has just read (the schema instead
    of a document); one line reads as a rule, and costs fewer prompt tokens."""
    return json.dumps(schema)


def show_template(difficulty: float) -> bool:
    """Only the easiest level shows the template: above it the model must build the document's shape itself."""
    return difficulty < 0.25


def show_schema(difficulty: float) -> bool:
    """The schema is shown between the template's level and 0.5. Not beside the template: a small model shown a
    schema copies the schema instead of writing a document, and the words already state what it says."""
    return not show_template(difficulty) and difficulty < 0.5


def template_block(schema: dict[str, Any], fmt: str, show: bool) -> str:
    """The template, last in the description, because a small model copies the last document it reads (shown
    only the schema, it copies the schema instead of writing a document)."""
    if not show:
        return ""
    return (f"\n\nA {FORMAT_NAMES[fmt]} document of this shape; replace the values so that it meets the "
            "requirements above:\n" + render(skeleton(schema), fmt).rstrip("\n"))


VALUES_HEADER = "\n\nIn your document, use these values:\n"


def values_block(lines: list[str], show: bool) -> str:
    """The easiest level's stated values, after the template, each written as it appears in a JSON document
    (`"port": 8080`, see `pair`): a small model fills a template by copying the last `"key": value` it read,
    which without this block is the template's own placeholder (it wrote `"priority": 1` under "priority 61")."""
    if not show or not lines:
        return ""
    return VALUES_HEADER + "\n".join(lines)


def pair(key: str, value: Any) -> str:
    return f"{json.dumps(key)}: {json.dumps(value)}"


def skeleton(schema: Any) -> Any:
    """A document of the schema's shape: every property present, each value the least of its type (an enum's
    first option, an integer at its minimum, "" for a string, false, a list of its minimum length). It shows
    keys and nesting, never the task's facts; the families make sure it fails their tests (a test pins that)."""
    if not isinstance(schema, dict):
        return None
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object" or (kind is None and "properties" in schema):
        return {k: skeleton(sub) for k, sub in schema.get("properties", {}).items()}
    if kind == "array" or (kind is None and "items" in schema):
        items = schema.get("items")
        if not isinstance(items, dict):
            return []
        # without a minimum length: one item of a list of objects (to show its keys), none of a list of values
        least = schema.get("minItems", 1 if type(skeleton(items)) is dict else 0)
        return [skeleton(items) for _ in range(least)]
    if kind in ("integer", "number"):
        if "minimum" in schema:
            return schema["minimum"]
        return schema["exclusiveMinimum"] + 1 if "exclusiveMinimum" in schema else 0
    if kind == "boolean":
        return False
    return "" if kind == "string" else None


def signature(fmt: str) -> str:
    return f"a {FORMAT_NAMES[fmt]} document"


class CheckFamily(Family):
    """A family whose tests are drawn from the variant's check groups. knobs['checks']: what the description states
    outright; knobs['implied']: the schema first, then the constraints the description only implies (orders,
    budgets, cross-field rules). Edge tests, which the hidden tests take first, are the schema, then every stated
    and implied constraint in one group, so every task's hidden tests check all of it whatever the test counts
    (the hidden tests decide the reward: a document right on what happened to be drawn, such as the template
    copied as it stands, must not score full marks); random tests draw single groups (stated or implied, never
    the schema) for a finer score."""

    kind = "structured"

    def random_input(self, knobs: Mapping[str, Any], rng: random.Random) -> list[Any]:
        return [rng.choice(list(knobs["checks"]) + list(knobs["implied"][1:]))]

    def edge_inputs(self, knobs: Mapping[str, Any]) -> list[list[Any]]:
        schema, *implied = knobs["implied"]
        every = [*knobs["checks"], *implied]
        return [[schema]] + [[c] for c in ([{"op": "all", "checks": every}] if every else []) + implied]
