"""structured_firewall: an ordered firewall rule list (first match wins, then the default action) implementing a
policy stated in words; judged by the action each test packet meets, computed by the judge on the document.

Tests are packets (the judge's `firewall` query) plus the schema; hidden packets probe just inside and just
outside each clause's ports and source block, so a rule list fitted to the shown packets fails. Difficulty adds
clauses, exceptions (a block that must be refused even though a broader clause allows it: the deny rule must
come first), an allow-by-default policy with denials, hides the schema and moves from JSON to YAML.
The easiest level is one clause, without example packets in the prompt, its rule in the template with one value
blanked.
"""

from __future__ import annotations

import ipaddress
import random
from collections.abc import Mapping
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

_SERVICES = ((22, "tcp", "SSH"), (80, "tcp", "HTTP"), (443, "tcp", "HTTPS"), (53, "udp", "DNS"),
             (123, "udp", "NTP"), (5432, "tcp", "PostgreSQL"), (6379, "tcp", "Redis"), (9100, "tcp", "metrics"),
             (514, "udp", "syslog"), (3306, "tcp", "MySQL"))
_BLOCKS = ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "10.20.0.0/16", "100.64.0.0/10", "203.0.113.0/24")
SCHEMA = {
    "type": "object", "required": ["default", "rules"], "additionalProperties": False,
    "properties": {
        "default": {"enum": ["allow", "deny"]},
        "rules": {"type": "array", "items": {
            "type": "object", "required": ["action"], "additionalProperties": False,
            "properties": {"action": {"enum": ["allow", "deny"]}, "protocol": {"enum": ["tcp", "udp", "any"]},
                           "ports": {"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": 65535}},
                           "source": {"type": "string"}}}},
    },
}


class FirewallPolicy(CheckFamily):
    name = "structured_firewall"
    tags = ("structured", "policy", "ordering", "semantics")

    def variant(self, difficulty: float, rng: random.Random) -> Variant:
        fmt = pick_format(difficulty, rng)
        template = show_template(difficulty)
        n_clauses = 1 if template else 1 + round(difficulty * 3)  # the template level's values are one rule's
        default = "allow" if difficulty >= 0.7 and rng.random() < 0.5 else "deny"
        clauses = []
        for port, proto, label in rng.sample(_SERVICES, n_clauses):
            block = rng.choice(_BLOCKS) if rng.random() < 0.6 else None
            inner = rng.random() < difficulty - 0.3 and block is not None
            clauses.append({"port": port, "protocol": proto, "label": label, "source": block,
                            "except": _inner_block(block, rng) if inner else None,
                            "action": "deny" if default == "allow" else "allow"})
        rules: list[dict[str, Any]] = []
        for c in clauses:
            if c["except"]:
                rules.append({"action": _flip(c["action"]), "protocol": c["protocol"], "ports": [c["port"]],
                              "source": c["except"]})
            rule = {"action": c["action"], "protocol": c["protocol"], "ports": [c["port"]]}
            if c["source"] or template:  # the template has every key: its answer says "any" where it is open
                rule["source"] = c["source"] or "any"
            rules.append(rule)
        doc = {"default": default, "rules": rules}
        show = show_schema(difficulty)
        options = [("default",), ("rules", 0, "protocol"), ("rules", 0, "ports"), ("rules", 0, "source")]
        blanks = pick_blanks(doc, options, difficulty, rng) if template else []
        description = (_description(fmt, default, clauses) + schema_block(SCHEMA, show)
                       + template_block(doc, blanks, fmt, template))
        knobs = {"format": fmt, "default": default, "clauses": clauses, "show_schema": show,
                 "show_template": template, "checks": [], "implied": [{"op": "schema", "schema": SCHEMA}]}
        return Variant(description, signature(fmt), fmt, render(doc, fmt), knobs)

    def random_input(self, knobs: Mapping[str, Any], rng: random.Random) -> list[Any]:
        return [_batch([_random_packet(rng.choice(knobs["clauses"]), rng) for _ in range(PACKETS_PER_TEST)])]

    def edge_inputs(self, knobs: Mapping[str, Any]) -> list[list[Any]]:
        """The schema, then one batch probing just inside and just outside every clause: its source block's
        first address and the one past its end, its exception, the other protocol, the next port."""
        packets = []
        for c in knobs["clauses"]:
            other = "udp" if c["protocol"] == "tcp" else "tcp"
            home = _first_address(c["source"] or "198.51.100.0/24")
            if c["except"]:
                packets.append(_packet(c["protocol"], c["port"], _first_address(c["except"])))
            if c["source"]:
                net = ipaddress.ip_network(c["source"])
                packets.append(_packet(c["protocol"], c["port"], str(net.broadcast_address + 1)))
            packets += [_packet(c["protocol"], c["port"], home), _packet(other, c["port"], home),
                        _packet(c["protocol"], c["port"] + 1, home)]
        return [[c] for c in knobs["implied"]] + [[_batch(packets)]]


PACKETS_PER_TEST = 4


def _random_packet(clause: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
    port = clause["port"] if rng.random() < 0.8 else rng.choice(_SERVICES)[0]
    protocol = clause["protocol"] if rng.random() < 0.85 else rng.choice(("tcp", "udp"))
    where = rng.random()
    if clause["except"] and where < 0.3:
        source = _address_in(clause["except"], rng)
    elif clause["source"] and where < 0.75:
        source = _address_in(clause["source"], rng)
    else:
        source = _address_outside(rng)
    return _packet(protocol, port, source)


def _packet(protocol: str, port: int, source: str) -> dict[str, Any]:
    return {"protocol": protocol, "port": port, "source": source}


def _batch(packets: list[dict[str, Any]]) -> dict[str, Any]:
    return {"op": "firewall", "rules": ["rules", "*"], "default": ["default"], "packets": packets}


def _flip(action: str) -> str:
    return "deny" if action == "allow" else "allow"


def _inner_block(block: str, rng: random.Random) -> str:
    net = ipaddress.ip_network(block)
    sub = list(net.subnets(new_prefix=min(net.prefixlen + 8, 30)))
    return str(rng.choice(sub[:64]))


def _address_in(block: str, rng: random.Random) -> str:
    net = ipaddress.ip_network(block)
    return str(net.network_address + rng.randrange(1, max(2, net.num_addresses - 1)))


def _first_address(block: str) -> str:
    return str(ipaddress.ip_network(block).network_address + 1)


def _address_outside(rng: random.Random) -> str:
    return rng.choice(("198.51.100.", "8.8.4.", "93.184.216.", "1.1.1.")) + str(rng.randint(1, 254))


def _description(fmt: str, default: str, clauses: list[dict[str, Any]]) -> str:
    lines = [f"Write a firewall policy as a {FORMAT_NAMES[fmt]} document with `default` (the action for packets "
             "no rule matches: allow or deny) and `rules`, an ordered list; the first rule a packet matches decides. "
             "A rule has `action` (allow or deny) and may have `protocol` (tcp, udp or any), `ports` (a list of port "
             "numbers; absent means every port) and `source` (a CIDR block; absent means any address).",
             "The policy:"]
    for c in clauses:
        verb = "Allow" if c["action"] == "allow" else "Deny"
        where = f"from {c['source']}" if c["source"] else "from anywhere"
        line = f"- {verb} {c['label']} ({c['protocol']} port {c['port']}) {where}"
        if c["except"]:
            line += f", except from {c['except']}, which is {'refused' if c['action'] == 'allow' else 'let through'}"
        lines.append(line + ".")
    lines.append(f"- {'Deny' if default == 'deny' else 'Allow'} everything else.")
    return "\n".join(lines)


register(FirewallPolicy())
