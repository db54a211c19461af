"""structured_record: a record (an order, a user, a device...) conforming to a JSON Schema that is always shown,
with a few facts its values must state. The schema is drawn: strings with patterns, enums, bounded integers,
multiples of a step, booleans, arrays with item counts and unique items, nested objects.

Public tests check the facts and single properties against their sub-schemas; the hidden (edge) test is the whole
schema (no other keys, every nesting level). Difficulty adds fields, nesting and facts, and moves to YAML.
"""

from __future__ import annotations

import json
import random
from typing import Any

from spade.generate.family import Variant
from spade.generate.registry import register
from spade.kinds.structured.families.common import FORMAT_NAMES, CheckFamily, pick_format, render, signature

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
        schema, doc = _object(names, depth, rng)
        entity = rng.choice(_ENTITIES)
        leaves = _leaves(doc)
        facts = rng.sample(leaves, min(len(leaves), 1 + round(difficulty * 3)))
        checks: list[Any] = [{"op": "equals", "path": list(path), "value": value} for path, value in facts]
        checks += [{"op": "schema", "schema": {"type": "object", "required": [n], "properties": {
            n: schema["properties"][n]}}} for n in names]
        implied: list[Any] = [{"op": "schema", "schema": schema}]
        lines = [f"Write a {FORMAT_NAMES[fmt]} document describing one {entity}, conforming to this JSON Schema:",
                 json.dumps(schema, indent=1), "Its values must state these facts:"]
        lines += [f"- `{'.'.join(map(str, path))}` is {json.dumps(value)}." for path, value in facts]
        knobs = {"format": fmt, "fields": n_fields, "depth": depth, "facts": len(facts), "checks": checks,
                 "implied": implied}
        return Variant("\n".join(lines), signature(fmt), fmt, render(doc, fmt), knobs)


def _object(names: list[str], depth: int, rng: random.Random) -> tuple[dict[str, Any], dict[str, Any]]:
    props, doc = {}, {}
    for name in names:
        props[name], doc[name] = _field(depth, rng)
    return {"type": "object", "required": list(names), "additionalProperties": False, "properties": props}, doc


def _field(depth: int, rng: random.Random) -> tuple[dict[str, Any], Any]:
    kinds = ["pattern", "enum", "integer", "step", "boolean", "array"] + (["object"] * 2 if depth > 1 else [])
    kind = rng.choice(kinds)
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
    return _object(inner, depth - 1, rng)


def _leaves(doc: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    if type(doc) is dict:
        return [leaf for k, v in doc.items() for leaf in _leaves(v, (*path, k))]
    return [(path, doc)]


register(RecordSchema())
