"""structured_record: a record (an order, a user, a device...) conforming to a JSON Schema that is always shown
(at the easiest level in words, with the answer as a template whose facts are blanked), with a few facts its values must
state. The schema is drawn: strings with patterns, enums, bounded integers,
multiples of a step, booleans, arrays with item counts and unique items, nested objects.

Public tests check the facts and single properties against their sub-schemas; the hidden (edge) tests are the whole
schema (no other keys, every nesting level) and all the checks. Difficulty adds fields, nesting and facts, and moves
to YAML. At the easiest level the fields are plain (enums, integers, multiples, booleans), the template is the
answer with its facts blanked (one, a number where there is one, at difficulty 0), and the facts follow it.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

from spade.generate.family import Variant
from spade.generate.registry import register
from spade.kinds.structured.families.common import (
    FORMAT_NAMES,
    CheckFamily,
    compact,
    pick_format,
    render,
    show_template,
    signature,
    template_block,
)

_ENTITIES = ("order", "user", "device", "invoice", "sensor", "ticket", "shipment", "account")
_WORDS = ("alpha", "bravo", "delta", "echo", "kilo", "lima", "oscar", "sierra", "tango", "zulu")
_FIELDS = ("code", "status", "count", "weight", "active", "tags", "owner", "region", "level", "limits", "label",
           "ratio", "contact", "flags", "meta", "window")


class RecordSchema(CheckFamily):
    name = "structured_record"
    tags = ("structured", "json_schema", "nesting")

    def variant(self, difficulty: float, rng: random.Random) -> Variant:
        fmt = pick_format(difficulty, rng)
        n_fields = 3 + round(difficulty * 5)
        depth = 1 + round(difficulty * 2)
        names = rng.sample(_FIELDS, n_fields)
        template = show_template(difficulty)
        schema, doc = _object(names, depth, rng, _PLAIN if template else _KINDS)
        leaves = _leaves(doc)
        entity = rng.choice(_ENTITIES)
        facts = rng.sample(leaves, min(len(leaves), 1 + round(difficulty * 3)))
        numbers = [(p, v) for p, v in leaves if type(v) in (int, float)]
        if template and len(facts) == 1 and numbers:  # the template's one blank a number (see pick_blanks)
            facts = [rng.choice(numbers)]
        stated: list[Any] = [{"op": "equals", "path": list(path), "value": value} for path, value in facts]
        checks = stated + [{"op": "schema", "schema": {"type": "object", "required": [n], "properties": {
            n: schema["properties"][n]}}} for n in names]
        implied: list[Any] = [{"op": "schema", "schema": schema}]
        if template:  # the schema in words: shown a schema, a small model copies it instead of writing a document
            lines = [f"Write a {FORMAT_NAMES[fmt]} document describing one {entity}, with exactly these keys:",
                     *_in_words(schema), "Its values must state these facts:"]
        else:
            opening = f"Write a {FORMAT_NAMES[fmt]} document describing one {entity}, conforming to this JSON Schema:"
            lines = [opening, compact(schema), "Its values must state these facts:"]
        lines += [f"- `{'.'.join(map(str, path))}` is {json.dumps(value)}." for path, value in facts]
        knobs = {"format": fmt, "fields": n_fields, "depth": depth, "facts": len(facts), "show_template": template,
                 "checks": checks, "implied": implied}
        # the template blanks the facts (the record's other values are shown)
        description = "\n".join(lines) + template_block(doc, [path for path, _ in facts], fmt, template)
        return Variant(description, signature(fmt), fmt, render(doc, fmt), knobs)


_KINDS = ("pattern", "enum", "integer", "step", "boolean", "array")
_PLAIN = ("enum", "integer", "step", "boolean")  # the easiest level's kinds: a value to copy, not to build


def _object(names: list[str], depth: int, rng: random.Random,
            kinds: tuple[str, ...] = _KINDS) -> tuple[dict[str, Any], dict[str, Any]]:
    props, doc = {}, {}
    for name in names:
        props[name], doc[name] = _field(depth, rng, kinds)
    return {"type": "object", "required": list(names), "additionalProperties": False, "properties": props}, doc


def _field(depth: int, rng: random.Random, kinds: tuple[str, ...]) -> tuple[dict[str, Any], Any]:
    kind = rng.choice(list(kinds) + (["object"] * 2 if depth > 1 else []))
    if kind == "pattern":
        letters, digits = rng.randint(2, 4), rng.randint(2, 5)
        value = "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ") for _ in range(letters)) + "-" + "".join(
            rng.choice("0123456789") for _ in range(digits))
        return {"type": "string", "pattern": f"^[A-Z]{{{letters}}}-[0-9]{{{digits}}}$"}, value
    if kind == "enum":
        options = rng.sample(_WORDS, rng.randint(2, 4))
        return {"enum": options}, rng.choice(options)
    if kind == "integer":
        lo = rng.choice((0, 1, 10, 100))
        hi = lo + rng.choice((9, 50, 900))
        return {"type": "integer", "minimum": lo, "maximum": hi}, rng.randint(lo, hi)
    if kind == "step":
        step = rng.choice((0.25, 0.5, 5))
        return {"type": "number", "minimum": 0, "exclusiveMaximum": 100, "multipleOf": step}, step * rng.randint(1, 19)
    if kind == "boolean":
        return {"type": "boolean"}, rng.random() < 0.5
    if kind == "array":
        n = rng.randint(1, 3)
        return ({"type": "array", "minItems": n, "maxItems": n + 1, "uniqueItems": True,
                 "items": {"type": "string", "minLength": 3}}, rng.sample(_WORDS, n))
    inner = rng.sample(_FIELDS, rng.randint(2, 3))
    return _object(inner, depth - 1, rng, kinds)


def _in_words(schema: dict[str, Any], prefix: str = "") -> list[str]:
    """One line per key, saying what its sub-schema (one of _field's kinds) allows."""
    lines = []
    for key, sub in schema["properties"].items():
        path = f"{prefix}{key}"
        if "properties" in sub:
            lines.append(f"- `{path}`: an object with exactly the keys below.")
            lines += _in_words(sub, path + ".")
        elif "enum" in sub:
            lines.append(f"- `{path}`: one of {', '.join(json.dumps(v) for v in sub['enum'])}.")
        elif "pattern" in sub:
            letters, digits = re.findall(r"\{(\d+)\}", sub["pattern"])
            lines.append(f"- `{path}`: a string of {letters} capital letters, a hyphen, then {digits} digits.")
        elif sub.get("type") == "integer":
            lines.append(f"- `{path}`: an integer from {sub['minimum']} to {sub['maximum']}.")
        elif sub.get("type") == "number":
            lines.append(f"- `{path}`: a multiple of {sub['multipleOf']}, at least {sub['minimum']} and below "
                         f"{sub['exclusiveMaximum']}.")
        elif sub.get("type") == "boolean":
            lines.append(f"- `{path}`: true or false.")
        else:
            lines.append(f"- `{path}`: a list of {sub['minItems']} to {sub['maxItems']} different strings, each at "
                         f"least {sub['items']['minLength']} characters long.")
    return lines


def _leaves(doc: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    if type(doc) is dict:
        return [leaf for k, v in doc.items() for leaf in _leaves(v, (*path, k))]
    return [(path, doc)]


register(RecordSchema())
