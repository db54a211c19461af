"""The check language of the structured kind: one test's check, a small JSON object, run on a parsed document.

`run(check, doc)` returns the check's value: `true` for a constraint that holds, the computed answer for a
query (`firewall`: the actions packets meet); it raises `CheckFailed` with one sentence when a constraint is
broken or the document lacks what the check reads. `check_problem(check)` is the host's static check of a check.
Paths are lists of keys, list indices and "*" (every item of a list, every value of a mapping); a missing key on
a path is a failure, never a vacuous pass, in an `implies` condition too (only an `exists` condition asks whether
it is there). A firewall rule with a field the query does not read (`port` for `ports`) is refused, not ignored.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from .schema import canonical, problem, same, schema_problem

MAX_CHECK_DEPTH = 8
MAX_PACKETS = 64
CMP = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
       "==": same, "!=": lambda a, b: not same(a, b)}


class CheckFailed(Exception):
    """The document breaks the check (or lacks what it reads); the message says where and how."""


class Missing(CheckFailed):
    """A path reaches a key or index the document lacks, or steps into a value that is not a container."""


def run(check: dict[str, Any], doc: Any, where: str = "$") -> Any:
    return _OPS[check["op"]](check, doc, where)


def select(node: Any, path: list[Any], where: str = "$") -> list[tuple[str, Any]]:
    """(location, value) of every node the path reaches; CheckFailed when a key or index is missing."""
    found = [(where, node)]
    for step in path:
        reached = []
        for loc, value in found:
            if step == "*":
                if type(value) is list:
                    reached += [(f"{loc}[{i}]", item) for i, item in enumerate(value)]
                elif type(value) is dict:
                    reached += [(f"{loc}.{k[:40]}", item) for k, item in value.items()]
                else:
                    raise Missing(f"{loc} is not a list or mapping")
            elif type(step) is int:
                if type(value) is not list or not 0 <= step < len(value):
                    raise Missing(f"{loc}[{step}] is missing")
                reached.append((f"{loc}[{step}]", value[step]))
            else:
                if type(value) is not dict or step not in value:
                    raise Missing(f"{loc}.{step} is missing")
                reached.append((f"{loc}.{step}", value[step]))
        found = reached
    return found


def one(node: Any, path: list[Any], where: str) -> tuple[str, Any]:
    found = select(node, path, where)
    if len(found) != 1:
        raise CheckFailed(f"{where}: expected one value at {path}, found {len(found)}")
    return found[0]


def _number(loc: str, value: Any) -> float:
    if type(value) not in (int, float):
        raise CheckFailed(f"{loc} is not a number")
    return value


def _schema(check: dict, doc: Any, where: str) -> bool:
    found = problem(check["schema"], doc, where)
    if found:
        raise CheckFailed(found)
    return True


def _exists(check: dict, doc: Any, where: str) -> bool:
    select(doc, check["path"], where)
    return True


def _equals(check: dict, doc: Any, where: str) -> bool:
    for loc, value in select(doc, check["path"], where):
        if not same(value, check["value"]):
            raise CheckFailed(f"{loc} is not {check['value']!r:.60}")
    return True


def _range(check: dict, doc: Any, where: str) -> bool:
    for loc, value in select(doc, check["path"], where):
        n = _number(loc, value)
        if "min" in check and n < check["min"]:
            raise CheckFailed(f"{loc} = {n} is below {check['min']}")
        if "max" in check and n > check["max"]:
            raise CheckFailed(f"{loc} = {n} is above {check['max']}")
    return True


def _distinct(check: dict, doc: Any, where: str) -> bool:
    seen: dict[str, str] = {}
    for loc, value in select(doc, check["path"], where):
        key = canonical(value)
        if key in seen:
            raise CheckFailed(f"{loc} repeats the value of {seen[key]}")
        seen[key] = loc
    return True


def _count(check: dict, doc: Any, where: str) -> bool:
    loc, value = one(doc, check["path"], where)
    if type(value) not in (list, dict):
        raise CheckFailed(f"{loc} is not a list or mapping")
    if len(value) < check.get("min", 0) or len(value) > check.get("max", len(value)):
        raise CheckFailed(f"{loc} has {len(value)} items, not between {check.get('min', 0)} and "
                          f"{check.get('max', 'any')}")
    return True


def _compare(check: dict, doc: Any, where: str) -> bool:
    left_loc, left = one(doc, check["left"], where)
    right_loc, right = one(doc, check["right"], where) if "right" in check else ("the value", check["value"])
    if check["cmp"] in ("<", "<=", ">", ">="):
        _number(left_loc, left), _number(right_loc, right)
    if not CMP[check["cmp"]](left, right):
        raise CheckFailed(f"{left_loc} = {left!r:.40} is not {check['cmp']} {right_loc} = {right!r:.40}")
    return True


def _sum(check: dict, doc: Any, where: str) -> bool:
    total: float = 0
    for loc, item in select(doc, check["items"], where):
        term: float = 1
        for path in check["terms"]:
            value_loc, value = one(item, path, loc)
            term *= _number(value_loc, value)
        total += term
    if "min" in check and total < check["min"]:
        raise CheckFailed(f"{where}: the total {total} is below {check['min']}")
    if "max" in check and total > check["max"]:
        raise CheckFailed(f"{where}: the total {total} is above {check['max']}")
    return True


def _sorted(check: dict, doc: Any, where: str) -> bool:
    keys = [one(item, check["key"], loc) for loc, item in select(doc, check["items"], where)]
    descending, strict = check.get("order", "asc") == "desc", check.get("strict", False)
    for (prev_loc, prev), (loc, key) in zip(keys, keys[1:]):
        _number(prev_loc, prev), _number(loc, key)
        a, b = (key, prev) if descending else (prev, key)
        if a > b or (strict and a == b):
            order = "descending" if descending else "ascending"
            raise CheckFailed(f"{loc} = {key} breaks the {'strictly ' if strict else ''}{order} order after {prev}")
    return True


def _subset(check: dict, doc: Any, where: str) -> bool:
    allowed = {canonical(value) for _, value in select(doc, check["of"], where)}  # a set: linear in the document
    for loc, value in select(doc, check["path"], where):
        if canonical(value) not in allowed:
            raise CheckFailed(f"{loc} = {value!r:.40} names nothing at {check['of']}")
    return True


def _ordered_deps(check: dict, doc: Any, where: str) -> bool:
    """Every item's dependencies are items listed before it (a valid start order)."""
    earlier: set[str] = set()
    for loc, item in select(doc, check["items"], where):
        name_loc, name = one(item, check["name"], loc)
        deps = select(item, check["deps"], loc) if _has(item, check["deps"]) else []
        for dep_loc, dep in deps:
            if type(dep) is not str or dep not in earlier:
                raise CheckFailed(f"{dep_loc} = {dep!r:.40} is not listed before {name!r:.40}")
        if type(name) is not str:
            raise CheckFailed(f"{name_loc} is not a string")
        earlier.add(name)
    return True


def _has(item: Any, path: list[Any]) -> bool:
    try:
        select(item, [s for s in path if s != "*"])
    except CheckFailed:
        return False
    return True


def _each(check: dict, doc: Any, where: str) -> bool:
    for loc, item in select(doc, check["path"], where):
        run(check["check"], item, loc)
    return True


def _implies(check: dict, doc: Any, where: str) -> bool:
    try:
        run(check["if"], doc, where)
    except Missing:
        if check["if"]["op"] != "exists":
            raise  # what the condition reads is absent: a failure, never a pass by default
        return True
    except CheckFailed:
        return True  # the condition does not hold: nothing is required
    return run(check["then"], doc, where)


def _all(check: dict, doc: Any, where: str) -> bool:
    for sub in check["checks"]:
        run(sub, doc, where)
    return True


def _firewall(check: dict, doc: Any, where: str) -> list[str]:
    """For each packet, the action of the first rule it matches, else the default action. A rule: action, and
    optionally protocol (or "any"), ports (a list; absent or empty means any port) and source (a CIDR block, or
    "any")."""
    rules = select(doc, check["rules"], where)
    default_loc, default = one(doc, check["default"], where)
    actions = []
    for packet in check["packets"]:
        for loc, rule in rules:
            if type(rule) is not dict:
                raise CheckFailed(f"{loc} is not a mapping")
            if _matches(rule, packet, loc):
                actions.append(_action(loc, rule.get("action")))
                break
        else:
            actions.append(_action(default_loc, default))
    return actions


RULE_FIELDS = ("action", "protocol", "ports", "source")


def _matches(rule: dict, packet: dict, loc: str) -> bool:
    unknown = next((k for k in rule if k not in RULE_FIELDS), None)
    if unknown is not None:
        raise CheckFailed(f"{loc} has the field {str(unknown)[:40]!r}, which a rule does not take; a rule has "
                          f"{', '.join(RULE_FIELDS)} (ports a list: \"ports\": [22])")
    protocol = rule.get("protocol", "any")
    if protocol not in ("tcp", "udp", "any"):
        raise CheckFailed(f"{loc}.protocol = {protocol!r:.40} is not tcp, udp or any")
    ports = rule.get("ports", [])
    if type(ports) is not list or any(type(p) is not int for p in ports):
        raise CheckFailed(f"{loc}.ports is not a list of port numbers")
    source = rule.get("source", "any")
    if source == "any":
        network = None
    else:
        try:
            network = ipaddress.ip_network(source, strict=False) if type(source) is str else None
        except ValueError:
            network = None
        if network is None:
            raise CheckFailed(f"{loc}.source = {source!r:.40} is not a CIDR block such as 10.0.0.0/8, or any")
    return ((protocol == "any" or protocol == packet["protocol"]) and (not ports or packet["port"] in ports)
            and (network is None or ipaddress.ip_address(packet["source"]) in network))


def _action(loc: str, action: Any) -> str:
    if action not in ("allow", "deny"):
        raise CheckFailed(f"{loc}: the action {action!r:.40} is not allow or deny")
    return action


_OPS = {"schema": _schema, "exists": _exists, "equals": _equals, "range": _range, "distinct": _distinct,
        "count": _count, "compare": _compare, "sum": _sum, "sorted": _sorted, "subset": _subset,
        "ordered_deps": _ordered_deps, "each": _each, "implies": _implies, "all": _all, "firewall": _firewall}
QUERIES = frozenset({"firewall"})
"""Ops whose value is an answer (the actions the packets meet, compared with the expected ones); every other op's
value is true."""

# The fields of each op: (required, optional), with what each holds.
_FIELDS: dict[str, tuple[dict[str, str], dict[str, str]]] = {
    "schema": ({"schema": "schema"}, {}),
    "exists": ({"path": "path"}, {}),
    "equals": ({"path": "path", "value": "any"}, {}),
    "range": ({"path": "path"}, {"min": "number", "max": "number"}),
    "distinct": ({"path": "path"}, {}),
    "count": ({"path": "path"}, {"min": "count", "max": "count"}),
    "compare": ({"left": "path", "cmp": "cmp"}, {"right": "path", "value": "any"}),
    "sum": ({"items": "path", "terms": "paths"}, {"min": "number", "max": "number"}),
    "sorted": ({"items": "path", "key": "path"}, {"order": "order", "strict": "bool"}),
    "subset": ({"path": "path", "of": "path"}, {}),
    "ordered_deps": ({"items": "path", "name": "path", "deps": "path"}, {}),
    "each": ({"path": "path", "check": "check"}, {}),
    "implies": ({"if": "check", "then": "check"}, {}),
    "all": ({"checks": "checks"}, {}),
    "firewall": ({"rules": "path", "default": "path", "packets": "packets"}, {}),
}


def check_problem(check: Any, where: str = "check", depth: int = 0) -> str | None:
    """What is wrong with a check itself (unknown op, missing or ill-typed field), or None."""
    if type(check) is not dict or check.get("op") not in _OPS:
        return f"{where} must be an object whose 'op' is one of {', '.join(sorted(_OPS))}"
    if depth > MAX_CHECK_DEPTH:
        return f"{where} nests checks more than {MAX_CHECK_DEPTH} levels deep"
    required, optional = _FIELDS[check["op"]]
    for name in required:
        if name not in check:
            return f"{where}: op {check['op']!r} needs the field {name!r}"
    for name, value in check.items():
        if name == "op":
            continue
        what = required.get(name) or optional.get(name)
        if what is None:
            return f"{where}: op {check['op']!r} has no field {name[:40]!r}; its fields are {', '.join([*required, *optional])}"
        found = _field_problem(what, value, f"{where}.{name}", depth)
        if found:
            return found
    if check["op"] == "compare" and ("right" in check) == ("value" in check):
        return f"{where}: op 'compare' needs exactly one of 'right' and 'value'"
    return None


def _field_problem(what: str, value: Any, where: str, depth: int) -> str | None:
    if what == "path":
        ok = type(value) is list and all(type(s) is str or (type(s) is int and s >= 0) for s in value)
        return None if ok else f"{where} must be a path: a list of keys, indices and \"*\""
    if what == "paths":
        if type(value) is not list or not value:
            return f"{where} must be a non-empty list of paths"
        return next((p for p in (_field_problem("path", v, where, depth) for v in value) if p), None)
    if what == "number":
        return None if type(value) in (int, float) else f"{where} must be a number"
    if what == "count":
        return None if type(value) is int and value >= 0 else f"{where} must be a non-negative integer"
    if what == "bool":
        return None if type(value) is bool else f"{where} must be true or false"
    if what == "cmp":
        return None if value in CMP else f"{where} must be one of {', '.join(CMP)}"
    if what == "order":
        return None if value in ("asc", "desc") else f"{where} must be asc or desc"
    if what == "schema":
        return schema_problem(value, where)
    if what == "check":
        return check_problem(value, where, depth + 1)
    if what == "checks":
        if type(value) is not list or not value:
            return f"{where} must be a non-empty list of checks"
        return next((p for p in (check_problem(c, f"{where}[{i}]", depth + 1) for i, c in enumerate(value)) if p),
                    None)
    if what == "packets":
        ok = type(value) is list and 0 < len(value) <= MAX_PACKETS and all(
            type(p) is dict and p.get("protocol") in ("tcp", "udp") and type(p.get("port")) is int
            and type(p.get("source")) is str and _is_address(p["source"]) for p in value)
        return None if ok else (f"{where} must be a list of 1 to {MAX_PACKETS} packets "
                                "{\"protocol\": tcp|udp, \"port\": int, \"source\": an IP address}")
    return None


def _is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def is_query(check: dict[str, Any]) -> bool:
    return check.get("op") in QUERIES


__all__ = ["CheckFailed", "Missing", "QUERIES", "check_problem", "is_query", "run", "select"]
