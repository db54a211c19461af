"""structured_service: one service's configuration (image, replicas, ports, resources, TLS, environment) with
ranges, distinct ports, min <= max limits, a memory budget across replicas and "TLS on requires a certificate".

The easiest level (the template's) is a lean service, every value stated: name, image, replicas and one port.
Difficulty adds ports and resource limits, nests the resources under `deploy`, adds the budget and TLS rules,
hides the JSON Schema and moves from JSON to YAML. The cross-field rules are the edge (hidden) tests.
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

_SERVICES = ("billing-api", "search", "auth-gateway", "inventory", "mailer", "thumbnailer", "ledger", "notifier")
_PORT_NAMES = ("http", "metrics", "grpc", "admin")
_LEVELS = ("debug", "info", "warn", "error")


class ServiceConfig(CheckFamily):
    name = "structured_service"
    tags = ("structured", "config", "ranges", "cross_field")

    def variant(self, difficulty: float, rng: random.Random) -> Variant:
        fmt = pick_format(difficulty, rng)
        service = rng.choice(_SERVICES)
        image = f"registry.local/{service}:{rng.randint(1, 4)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}"
        n_ports = 1 + round(difficulty * 2.6) if difficulty > 0.1 else 1
        port_names = list(_PORT_NAMES[:n_ports])
        lo = rng.choice((3000, 5000, 8000, 9000))
        hi = lo + rng.choice((99, 499, 999))
        replicas_lo, replicas_hi = rng.randint(1, 2), rng.randint(3, 6)
        nested = difficulty >= 0.6
        with_cpu, with_budget, with_tls = difficulty >= 0.3, difficulty >= 0.45, difficulty >= 0.25
        level = rng.choice(_LEVELS)
        replicas = rng.randint(replicas_lo, replicas_hi)
        memory = {"min": rng.choice((128, 256)), "max": rng.choice((512, 768, 1024))}
        budget = replicas_hi * memory["max"] - rng.choice((0, memory["max"])) if with_budget else None
        if budget is not None and replicas * memory["max"] > budget:
            replicas = budget // memory["max"]
        resources: dict[str, Any] = {"memory_mb": memory}
        if with_cpu:
            resources["cpu_millicores"] = {"min": rng.choice((100, 250)), "max": rng.choice((500, 1000, 2000))}
        ports = [{"name": n, "port": p} for n, p in zip(port_names, rng.sample(range(lo, hi + 1), n_ports))]
        doc: dict[str, Any] = {"name": service, "image": image, "replicas": replicas, "ports": ports}
        lean = show_template(difficulty)  # the easiest level: name, image, replicas and one port, each stated
        if lean:
            replicas_lo = replicas_hi = replicas
            lo = hi = ports[0]["port"]
        else:
            doc["deploy" if nested else "resources"] = {"resources": resources} if nested else resources
        if with_tls:
            doc["tls"] = {"enabled": True, "cert_path": f"/etc/tls/{service}.crt"}
        if not lean:
            doc["env"] = {"LOG_LEVEL": level, "REGION": rng.choice(("eu-west-1", "us-east-2", "ap-south-1"))}
        res_path = [] if lean else ["deploy", "resources"] if nested else ["resources"]
        schema = _schema(port_names, lo, hi, with_cpu, with_tls, nested, lean)
        checks, implied = _checks(schema, service, image, port_names, lo, hi, replicas_lo, replicas_hi, level,
                                  res_path, budget, with_tls)
        description = _description(fmt, service, image, port_names, lo, hi, replicas_lo, replicas_hi, level,
                                    res_path, with_cpu, budget, with_tls)
        description += schema_block(schema, show_schema(difficulty))
        blanks = pick_blanks(doc, [("name",), ("image",), ("replicas",), ("ports", 0, "port")], difficulty,
                             rng) if lean else []
        description += template_block(doc, blanks, fmt, lean)
        knobs = {"format": fmt, "ports": n_ports, "nested": nested, "budget": budget, "tls": with_tls,
                 "cpu": with_cpu, "lean": lean, "show_schema": show_schema(difficulty), "show_template": lean,
                 "checks": checks, "implied": implied}
        return Variant(description, signature(fmt), fmt, render(doc, fmt), knobs)


def _schema(port_names: list[str], lo: int, hi: int, with_cpu: bool, with_tls: bool, nested: bool,
            lean: bool) -> dict[str, Any]:
    """lean: no resources and no env (the easiest level)."""
    limit = {"type": "object", "required": ["min", "max"], "additionalProperties": False,
             "properties": {"min": {"type": "integer", "minimum": 64, "maximum": 4096},
                            "max": {"type": "integer", "minimum": 64, "maximum": 4096}}}
    resources = {"type": "object", "required": ["memory_mb"] + (["cpu_millicores"] if with_cpu else []),
                 "additionalProperties": False,
                 "properties": {"memory_mb": limit, **({"cpu_millicores": limit} if with_cpu else {})}}
    port = {"type": "object", "required": ["name", "port"], "additionalProperties": False,
            "properties": {"name": {"enum": port_names}, "port": {"type": "integer", "minimum": lo, "maximum": hi}}}
    props: dict[str, Any] = {
        "name": {"type": "string"}, "image": {"type": "string"},
        "replicas": {"type": "integer", "minimum": 1},
        "ports": {"type": "array", "items": port, "minItems": len(port_names), "maxItems": len(port_names)},
        "env": {"type": "object", "required": ["LOG_LEVEL"], "additionalProperties": {"type": "string"},
                "properties": {"LOG_LEVEL": {"enum": list(_LEVELS)}}},
    }
    if lean:
        del props["env"]
    elif nested:
        props["deploy"] = {"type": "object", "required": ["resources"], "additionalProperties": False,
                           "properties": {"resources": resources}}
    else:
        props["resources"] = resources
    if with_tls:
        props["tls"] = {"type": "object", "required": ["enabled"], "additionalProperties": False,
                        "properties": {"enabled": {"type": "boolean"}, "cert_path": {"type": "string"}}}
    return {"type": "object", "required": list(props), "additionalProperties": False, "properties": props}


def _checks(schema: dict[str, Any], service: str, image: str, port_names: list[str], lo: int, hi: int,
            replicas_lo: int, replicas_hi: int, level: str, res_path: list[str], budget: int | None,
            with_tls: bool) -> tuple[list[Any], list[Any]]:
    """res_path empty: the lean document (no resources, no env)."""
    checks: list[Any] = [
        {"op": "all", "checks": [{"op": "equals", "path": ["name"], "value": service},
                                 {"op": "equals", "path": ["image"], "value": image}]},
        {"op": "range", "path": ["replicas"], "min": replicas_lo, "max": replicas_hi},
        {"op": "all", "checks": [{"op": "count", "path": ["ports"], "min": len(port_names), "max": len(port_names)},
                                 {"op": "range", "path": ["ports", "*", "port"], "min": lo, "max": hi},
                                 {"op": "distinct", "path": ["ports", "*", "name"]}]},
    ]
    implied: list[Any] = [{"op": "schema", "schema": schema}, {"op": "distinct", "path": ["ports", "*", "port"]}]
    if res_path:
        checks.append({"op": "all", "checks": [{"op": "equals", "path": ["env", "LOG_LEVEL"], "value": level},
                                               {"op": "range", "path": [*res_path, "*", "*"], "min": 64,
                                                "max": 4096}]})
        implied.append({"op": "each", "path": [*res_path, "*"],
                        "check": {"op": "compare", "left": ["min"], "cmp": "<=", "right": ["max"]}})
    if budget is not None:
        implied.append({"op": "sum", "items": [], "terms": [["replicas"], [*res_path, "memory_mb", "max"]],
                        "max": budget})
    if with_tls:
        implied.append({"op": "all", "checks": [
            {"op": "equals", "path": ["tls", "enabled"], "value": True},
            {"op": "implies", "if": {"op": "equals", "path": ["tls", "enabled"], "value": True},
             "then": {"op": "schema", "schema": {"properties": {"tls": {"required": ["cert_path"], "properties": {
                 "cert_path": {"type": "string", "pattern": r"^/\S+\.crt$"}}}}}}}]})
    return checks, implied


def _description(fmt: str, service: str, image: str, port_names: list[str], lo: int, hi: int, replicas_lo: int,
                 replicas_hi: int, level: str, res_path: list[str], with_cpu: bool, budget: int | None,
                 with_tls: bool) -> str:
    res = ".".join(res_path)
    kinds = "`memory_mb`" + (" and `cpu_millicores`" if with_cpu else "")
    lines = [
        f"Write the {FORMAT_NAMES[fmt]} configuration of the service `{service}`.",
        f"- `name` is \"{service}\" and `image` is \"{image}\".",
    ]
    if not res_path:  # the lean, easiest level: every value stated
        lines += [f"- `replicas` is {replicas_lo}.",
                  f"- `ports` is a list of one entry, with `name` \"{port_names[0]}\" and the integer `port` {lo}.",
                  "- No keys other than these."]
        return "\n".join(lines)
    lines += [
        f"- `replicas` is an integer from {replicas_lo} to {replicas_hi}.",
        f"- `ports` is a list of {len(port_names)} entries, one for each of {', '.join(port_names)}, each with "
        f"`name` and an integer `port` between {lo} and {hi}; no two entries share a port.",
        f"- `{res}` holds {kinds}, each with integer `min` and `max` (megabytes / millicores); every limit is "
        "between 64 and 4096 and no `min` is above its `max`.",
    ]
    if budget is not None:
        lines.append(f"- All replicas together may reserve at most {budget} MB: `replicas` times "
                     f"`{res}.memory_mb.max` must not exceed {budget}.")
    if with_tls:
        lines.append("- TLS is on: `tls.enabled` is true, and an enabled TLS needs `tls.cert_path`, an absolute "
                     "path to a .crt file.")
    lines.append(f"- `env` maps variable names to strings and sets LOG_LEVEL to \"{level}\".")
    lines.append("- No keys other than these.")
    return "\n".join(lines)


register(ServiceConfig())
