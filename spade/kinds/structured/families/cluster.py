"""structured_cluster: a deployment of several services with ports, memory, replicas and dependencies: ports
distinct and in range, every dependency a listed service, the list in a valid start order (each service after
the services it depends on), and the total reserved memory (replicas x memory) under a budget.

The start order, the references and the budget are the hidden (edge) tests; each service's dependencies are
public checks. Difficulty adds services and dependencies, the budget, hides the schema and moves to YAML. The
easiest level states each service's port and shows the answer (in start order) with one value blanked.
"""

from __future__ import annotations

import random
from typing import Any

from spade.generate.family import Variant
from spade.generate.registry import register
from spade.kinds.structured.families.common import (
    FORMAT_NAMES,
    CheckFamily,
    pick_blanks,
    pick_format,
    render,
    schema_block,
    show_schema,
    show_template,
    signature,
    template_block,
)

_NAMES = ("db", "cache", "queue", "api", "worker", "web", "search", "auth", "scheduler", "mailer")


class ClusterDeployment(CheckFamily):
    name = "structured_cluster"
    tags = ("structured", "config", "references", "ordering", "budget")

    def variant(self, difficulty: float, rng: random.Random) -> Variant:
        fmt = pick_format(difficulty, rng)
        n = 2 + round(difficulty * 4)
        names = rng.sample(_NAMES, n)  # this order is a valid start order: dependencies point backwards
        deps = {name: sorted(rng.sample(names[:i], min(i, rng.randint(0, 1 + round(difficulty)))))
                for i, name in enumerate(names)}
        lo = rng.choice((7000, 8000, 9000))
        hi = lo + 99
        ports = rng.sample(range(lo, hi + 1), n)
        services = [{"name": name, "port": port, "replicas": rng.randint(1, 3), "memory_mb": rng.choice((128, 256, 512)),
                     "depends_on": deps[name]} for name, port in zip(names, ports)]
        total = sum(s["replicas"] * s["memory_mb"] for s in services)
        budget = (total + rng.choice((0, 128, 256))) if difficulty >= 0.4 else None
        schema = _schema(names, lo, hi)
        shown = names[:]
        rng.shuffle(shown)  # listed out of order: the answer must find a start order
        template = show_template(difficulty)
        # the easiest level states each service's port (the template repeats one port for all)
        stated = {name: ports[names.index(name)] for name in shown} if template else {}
        checks: list[Any] = [{"op": "each", "path": ["services", "*"], "check": {"op": "implies", "if": {
            "op": "equals", "path": ["name"], "value": name}, "then": {"op": "schema", "schema": {"properties": {
                **({"port": {"const": stated[name]}} if name in stated else {}),
                "depends_on": {"type": "array", "uniqueItems": True, "minItems": len(deps[name]),
                               "maxItems": len(deps[name]), "items": {"enum": deps[name]} if deps[name] else False}}}}}}
            for name in shown]
        checks.append({"op": "all", "checks": [{"op": "count", "path": ["services"], "min": n, "max": n},
                                               {"op": "range", "path": ["services", "*", "port"], "min": lo,
                                                "max": hi}]})
        implied: list[Any] = [
            {"op": "schema", "schema": schema},
            {"op": "all", "checks": [
                {"op": "ordered_deps", "items": ["services", "*"], "name": ["name"], "deps": ["depends_on", "*"]},
                {"op": "subset", "path": ["services", "*", "depends_on", "*"], "of": ["services", "*", "name"]}]},
            {"op": "all", "checks": [{"op": "distinct", "path": ["services", "*", "port"]},
                                     {"op": "distinct", "path": ["services", "*", "name"]}]},
        ]
        if budget is not None:
            implied.append({"op": "sum", "items": ["services", "*"], "terms": [["replicas"], ["memory_mb"]],
                            "max": budget})
        show = show_schema(difficulty)
        doc = {"services": services}
        # the template is the start order; a blank is a port or a dependency list that is not empty
        options = [("services", i, key) for i, s in enumerate(services) for key in ("port", "depends_on")
                   if key == "port" or s[key]]
        blanks = pick_blanks(doc, options, difficulty, rng) if template else []
        description = (_description(fmt, shown, deps, lo, hi, budget, stated) + schema_block(schema, show)
                       + template_block(doc, blanks, fmt, template))
        knobs = {"format": fmt, "services": n, "budget": budget, "show_schema": show, "show_template": template,
                 "checks": checks, "implied": implied}
        return Variant(description, signature(fmt), fmt, render(doc, fmt), knobs)


def _schema(names: list[str], lo: int, hi: int) -> dict[str, Any]:
    service = {"type": "object", "required": ["name", "port", "replicas", "memory_mb", "depends_on"],
               "additionalProperties": False, "properties": {
                   "name": {"enum": sorted(names)}, "port": {"type": "integer", "minimum": lo, "maximum": hi},
                   "replicas": {"type": "integer", "minimum": 1, "maximum": 10},
                   "memory_mb": {"type": "integer", "minimum": 64, "maximum": 8192},
                   "depends_on": {"type": "array", "items": {"type": "string"}}}}
    return {"type": "object", "required": ["services"], "additionalProperties": False,
            "properties": {"services": {"type": "array", "items": service, "minItems": len(names),
                                        "maxItems": len(names)}}}


def _description(fmt: str, shown: list[str], deps: dict[str, list[str]], lo: int, hi: int, budget: int | None,
                 ports: dict[str, int]) -> str:
    lines = [f"Write a deployment as a {FORMAT_NAMES[fmt]} document: a mapping with one key, `services`, the list "
             "of services in the order they are started. Each service has `name`, an integer `port`, `replicas` "
             "(1-10), `memory_mb` per replica (64-8192) and `depends_on`, the names of the services it needs "
             "(an empty list when none). A service can only start after every service it depends on.",
             f"Every port is between {lo} and {hi}, and no two services share a port.",
             f"The services ({len(shown)}, no others):"]
    for name in shown:
        needs = ", ".join(f"`{d}`" for d in deps[name]) or "nothing"
        port = f"; its port is {ports[name]}" if name in ports else ""
        lines.append(f"- `{name}` needs {needs}{port}.")
    if budget is not None:
        lines.append(f"All replicas together may reserve at most {budget} MB of memory (the sum of replicas x "
                     "memory_mb over the services).")
    return "\n".join(lines)


register(ClusterDeployment())
