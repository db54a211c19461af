"""What the structured families share: the document format by difficulty, rendering a document in it, the
schema shown or not, the template shown or not (the answer with a few values blanked, then those values, which
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


Path = tuple[Any, ...]


def pick_blanks(doc: Any, paths: list[Path], difficulty: float, rng: random.Random) -> list[Path]:
    """The template level's blanks: one at difficulty 0, a number where one can be blanked (the 135M model wrote
    a stated number into its blank far more often than a string: it copied `"image": null` as it stood), one
    more blank, of any type, every 0.125 (three by 0.25)."""
    count = min(len(paths), 1 + round(difficulty * 8))
    numbers = [p for p in paths if type(_at(doc, p)) in (int, float)]
    if count == 1 and numbers:
        return [rng.choice(numbers)]
    return rng.sample(paths, count)


def template_block(doc: Any, blanks: list[Path], fmt: str, show: bool) -> str:
    """The easiest level, last in the description: the answer with the values at `blanks` replaced by
    placeholders, then those values as written in JSON (`"port": 8080`, or `{"name": "db", "port": 8080}` for an
    item of a list of named things). Measured on the embedded 135M model: shown a template of placeholders
    (every value its type's least), it copied the template as it stood, placeholders and all, nearly every time
    (1 of 40 samples passed); a value or two to fill in it does replace. Copying the template as it stands fails:
    every blank differs from the answer's value."""
    if not show:
        return ""
    template = blanked(doc, blanks)
    lines = [_stated(doc, path) for path in blanks]
    return (f"\n\nA {FORMAT_NAMES[fmt]} document of this shape; replace the values so that it meets the "
            "requirements above:\n" + render(template, fmt).rstrip("\n") + VALUES_HEADER + "\n".join(lines))



VALUES_HEADER = "\n\nIn your document, use these values:\n"


def blanked(doc: Any, blanks: list[Path]) -> Any:
    """A deep copy of doc with the value at each path replaced by a placeholder that differs from it."""
    copy = json.loads(json.dumps(doc))
    for path in blanks:
        parent = _at(copy, path[:-1])
        parent[path[-1]] = _placeholder(parent[path[-1]])
    return copy


def _placeholder(value: Any) -> Any:
    """null: no family's schema allows it, and it reads as a value left out."""
    return None if value is not None else ""


def _at(doc: Any, path: Path) -> Any:
    for step in path:
        doc = doc[step]
    return doc


def _stated(doc: Any, path: Path) -> str:
    value, parent = _at(doc, path), _at(doc, path[:-1])
    named = any(type(step) is int for step in path) and type(parent) is dict and "name" in parent
    if named and path[-1] != "name":
        return json.dumps({"name": parent["name"], path[-1]: value})
    return f"{json.dumps(path[-1])}: {json.dumps(value)}"


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
