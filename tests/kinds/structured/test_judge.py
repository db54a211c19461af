"""The judge's parts on the host (the same files run inside the sandbox): the JSON Schema subset, the check
language and its static check, and the corruptions validation runs."""

from __future__ import annotations

import json

import pytest

from spade.kinds.structured.corrupt import CLASSES, corruptions
from spade.kinds.structured.judge.checks import CheckFailed, check_problem, run
from spade.kinds.structured.judge.parse import Refused, parse_document
from spade.kinds.structured.judge.schema import problem, schema_problem

SCHEMA = {"type": "object", "required": ["ports"], "additionalProperties": False, "properties": {
    "ports": {"type": "array", "minItems": 1, "uniqueItems": True,
              "items": {"type": "integer", "minimum": 1, "maximum": 65535}},
    "mode": {"enum": ["a", "b"]}, "ratio": {"type": "number", "exclusiveMaximum": 1, "multipleOf": 0.25},
    "name": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 8}}}


@pytest.mark.parametrize("doc, fragment", [
    ({"ports": [80]}, None),
    ({"ports": [80.0], "ratio": 0.5}, None),  # 80.0 is an integer in JSON Schema
    ({"ports": [True]}, "not of type integer"),  # a bool is not a number
    ({}, "required key 'ports'"),
    ({"ports": [80], "x": 1}, "'x' is not allowed"),
    ({"ports": []}, "fewer than 1"),
    ({"ports": [80, 80]}, "repeats"),
    ({"ports": [0]}, "less than the minimum"),
    ({"ports": [1], "mode": "c"}, "not one of"),
    ({"ports": [1], "ratio": 1}, "not less than 1"),
    ({"ports": [1], "ratio": 0.3}, "multiple of"),
    ({"ports": [1], "name": "Web"}, "pattern"),
    ({"ports": [1], "name": "abcdefghij"}, "longer than 8"),
])
def test_the_schema_subset_names_the_first_violation(doc, fragment):
    found = problem(SCHEMA, doc)
    assert (found is None) if fragment is None else (fragment in found), found


@pytest.mark.parametrize("schema, fragment", [
    ({"$ref": "#/defs/x"}, "'$ref' is not supported"),
    ({"type": "int"}, "must name types"),
    ({"properties": {"a": {"minimum": "0"}}}, "must be a number"),
    ({"pattern": "("}, "not a regular expression"),
    ({"anyOf": []}, "non-empty list"),
])
def test_a_schema_outside_the_subset_is_refused_statically(schema, fragment):
    assert fragment in schema_problem(schema)
    assert schema_problem(SCHEMA) is None


DOC = {"services": [{"name": "db", "port": 5432, "replicas": 1, "memory": 512, "deps": [], "min": 1, "max": 2},
                    {"name": "api", "port": 8080, "replicas": 2, "memory": 256, "deps": ["db"], "min": 3, "max": 3}],
       "default": "deny", "rules": [{"action": "allow", "protocol": "tcp", "ports": [22], "source": "10.0.0.0/8"}],
       "tls": {"enabled": False}}


@pytest.mark.parametrize("check, holds", [
    ({"op": "distinct", "path": ["services", "*", "port"]}, True),
    ({"op": "range", "path": ["services", "*", "port"], "min": 6000}, False),
    ({"op": "sum", "items": ["services", "*"], "terms": [["replicas"], ["memory"]], "max": 1024}, True),
    ({"op": "sum", "items": ["services", "*"], "terms": [["replicas"], ["memory"]], "max": 1000}, False),
    ({"op": "ordered_deps", "items": ["services", "*"], "name": ["name"], "deps": ["deps", "*"]}, True),
    ({"op": "sorted", "items": ["services", "*"], "key": ["port"], "order": "desc"}, False),
    ({"op": "each", "path": ["services", "*"], "check": {"op": "compare", "left": ["min"], "cmp": "<=",
                                                           "right": ["max"]}}, True),
    ({"op": "subset", "path": ["services", "*", "deps", "*"], "of": ["services", "*", "name"]}, True),
    ({"op": "implies", "if": {"op": "equals", "path": ["tls", "enabled"], "value": True},
      "then": {"op": "exists", "path": ["tls", "cert_path"]}}, True),
    ({"op": "exists", "path": ["tls", "cert_path"]}, False),  # a missing key fails, never passes vacuously
    ({"op": "count", "path": ["services"], "min": 3}, False),
])
def test_constraint_checks_hold_or_fail_with_a_reason(check, holds):
    assert check_problem(check) is None
    if holds:
        assert run(check, DOC) is True
    else:
        with pytest.raises(CheckFailed):
            run(check, DOC)


def test_the_firewall_query_gives_the_first_matching_rules_action_per_packet():
    packets = [{"protocol": "tcp", "port": 22, "source": "10.1.2.3"}, {"protocol": "tcp", "port": 22,
                                                                        "source": "11.0.0.1"},
               {"protocol": "udp", "port": 22, "source": "10.1.2.3"}]
    check = {"op": "firewall", "rules": ["rules", "*"], "default": ["default"], "packets": packets}
    assert check_problem(check) is None
    assert run(check, DOC) == ["allow", "deny", "deny"]
    with pytest.raises(CheckFailed, match="CIDR"):
        run(check, dict(DOC, rules=[{"action": "allow", "source": "ten"}]))


def test_a_firewall_rule_with_a_field_the_query_does_not_read_fails_rather_than_matching_every_port():
    packets = [{"protocol": "tcp", "port": 22, "source": "10.1.2.3"}, {"protocol": "tcp", "port": 80,
                                                                        "source": "10.1.2.3"}]
    check = {"op": "firewall", "rules": ["rules", "*"], "default": ["default"], "packets": packets}
    misspelt = dict(DOC, rules=[{"action": "allow", "protocol": "tcp", "port": 22}])
    with pytest.raises(CheckFailed, match="'port', which a rule does not take"):
        run(check, misspelt)
    assert run(check, dict(DOC, rules=[{"action": "allow", "protocol": "tcp", "ports": [22]}])) == ["allow", "deny"]


TLS_NEEDS_CERT = {"op": "implies", "if": {"op": "equals", "path": ["tls", "enabled"], "value": True},
                  "then": {"op": "exists", "path": ["tls", "cert_path"]}}


@pytest.mark.parametrize("doc, holds", [
    ({"tls": {"enabled": True, "cert_path": "/a.crt"}}, True),
    ({"tls": {"enabled": False}}, True),  # the condition is read and does not hold
    ({"tls": {"enabled": True}}, False),
    ({"tls": {}}, False),  # what the condition reads is missing: never a pass
    ({}, False),
    ({"tls": 3}, False),
])
def test_an_implication_whose_condition_reads_a_missing_key_fails(doc, holds):
    if holds:
        assert run(TLS_NEEDS_CERT, doc) is True
    else:
        with pytest.raises(CheckFailed):
            run(TLS_NEEDS_CERT, doc)
    present = {"op": "implies", "if": {"op": "exists", "path": ["tls"]}, "then": TLS_NEEDS_CERT["then"]}
    assert run(present, {}) is True  # an `exists` condition asks whether the key is there


@pytest.mark.parametrize("check, fragment", [
    ({"op": "nope"}, "'op' is one of"),
    ({"op": "range"}, "needs the field 'path'"),
    ({"op": "range", "path": "a.b"}, "must be a path"),
    ({"op": "range", "path": [], "minimum": 1}, "has no field 'minimum'"),
    ({"op": "compare", "left": [], "cmp": "<"}, "exactly one of"),
    ({"op": "firewall", "rules": [], "default": [], "packets": [{"protocol": "icmp"}]}, "packets"),
])
def test_a_malformed_check_is_refused_statically(check, fragment):
    assert fragment in check_problem(check)


def test_parsing_refuses_what_json_and_yaml_would_otherwise_accept_silently():
    assert parse_document('{"a": [1, 2.5, null, true]}', "json") == {"a": [1, 2.5, None, True]}
    for text, fmt in (('{"a": 1, "a": 2}', "json"), ("a: 1\na: 2\n", "yaml"), ("yes: 1\n", "yaml")):
        with pytest.raises(Refused):
            parse_document(text, fmt)


def test_corruptions_cover_each_class_and_are_deterministic():
    made = corruptions(DOC, "seed", 12)
    assert made == corruptions(DOC, "seed", 12) and len(made) == 12
    assert {cls for cls, _ in made} == set(CLASSES)
    assert all(json.loads(doc) != DOC for _, doc in made)
