"""Hostile documents, judged through the real sandbox: every bomb is a verdict (a syntax error naming the bound),
in little CPU, never a host crash or hang; and a judge reply that is missing or malformed is a verdict too."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from spade.kinds import kind_of
from spade.kinds.structured.execute import judged
from spade.records import ExecStatus, TestCase, TestStatus
from spade.sandbox.program import ProgramRun, ProgramVerdict
from tests.kinds.structured.conftest import GOOD_JSON, GOOD_YAML


def _laughs(levels: int = 9, width: int = 9) -> str:
    lines = ["l0: &l0 [" + ", ".join(["lol"] * width) + "]"]
    for i in range(1, levels):
        lines.append(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


def _doubling(levels: int = 60) -> str:
    lines = ["a0: &a0 [x, x]"] + [f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


HOSTILE_YAML = {
    "billion_laughs": (_laughs(), "values"),
    "doubling_aliases_under_the_alias_and_depth_caps": (_doubling(30), "values"),  # 2**30 values
    "too_many_aliases": ("a: &a x\nb: [" + ", ".join(["*a"] * 300) + "]\n", "aliases"),
    "recursive_alias": ("a: &a [*a]\n", "nested"),
    "deep_flow_nesting": ("[" * 30_000 + "]" * 30_000, "nested"),
    "deep_block_nesting": ("".join("  " * i + f"k{i}:\n" for i in range(200)) + "  " * 200 + "v: 1\n", "nested"),
    "python_object_tag": ("a: !!python/object/apply:os.system ['touch /tmp/pwned']\n", "constructor"),
    "python_name_tag": ("a: !!python/name:os.system\n", "constructor"),
    "huge_float": ("a: 1.0e+999999\n", "out of range"),
    "huge_int": ("a: " + "9" * 50_000 + "\n", "out of range"),
    "duplicate_key": ("name: web\nname: other\n", "duplicate key"),
    "bool_key": ("on: push\n", "not read as a string"),
    "int_key": ("1: one\n", "not read as a string"),
    "date_value": ("when: 2024-01-01\n", "not JSON data"),
    "binary_value": ("blob: !!binary aGVsbG8=\n", "not JSON data"),
    "set_value": ("s: !!set {a, b}\n", "not JSON data"),
    "two_documents": ("a: 1\n---\nb: 2\n", "single document"),
}
HOSTILE_JSON = {
    "deep_nesting": ("[" * 60_000 + "]" * 3_000, "nested"),
    "huge_exponent": ('{"port": 1e999999}', "out of range"),
    "huge_int": ('{"port": ' + "1" * 5_000 + "}", "digits"),
    "nan": ('{"port": NaN}', "not a JSON number"),
    "infinity": ('{"port": -Infinity}', "not a JSON number"),
    "duplicate_key": ('{"name": "web", "name": "x", "port": 8080}', "duplicate key"),
    "many_values": ("[" + ",".join(["0"] * 25_000) + "]", "values"),
}


def _judge(pool, task, answers):
    return kind_of(task).execute(pool, [(task, a) for a in answers])


@pytest.mark.parametrize("name", sorted(HOSTILE_YAML))
def test_hostile_yaml_is_refused_as_a_syntax_error_naming_the_bound(pool, yaml_task, name):
    document, reason = HOSTILE_YAML[name]
    [result] = _judge(pool, yaml_task, [document])
    assert result.status is ExecStatus.SYNTAX_ERROR, (result.status, result.load_error)
    assert reason in result.load_error, result.load_error
    assert all(t.status is TestStatus.NOT_RUN for t in result.tests)
    # Refused by a bound, not killed by the clock (that would be a timeout), in little CPU: the kernel's measure,
    # not the wall clock, which this shared machine's load stretches.
    assert result.cpu_time_s < 1.5


@pytest.mark.parametrize("name", sorted(HOSTILE_JSON))
def test_hostile_json_is_refused_as_a_syntax_error_naming_the_bound(pool, json_task, name):
    document, reason = HOSTILE_JSON[name]
    [result] = _judge(pool, json_task, [document])
    assert result.status is ExecStatus.SYNTAX_ERROR, (result.status, result.load_error)
    assert reason in result.load_error, result.load_error
    assert result.cpu_time_s < 1.5


@pytest.mark.parametrize("size", [10 * 1024 * 1024, 100_001])  # 10 MB; a 10**100000 literal
def test_an_oversized_document_is_refused_on_the_host_without_running(pool, json_task, size):
    document = '{"port": ' + "1" * size + "}"
    [result] = _judge(pool, json_task, [document])
    assert result.status is ExecStatus.SYNTAX_ERROR and "characters" in result.load_error
    assert result.cpu_time_s == 0 and result.wall_time_s == 0  # never sent to the sandbox


def test_after_every_bomb_the_pool_still_judges_good_documents(pool, yaml_task, json_task):
    bombs = [d for d, _ in HOSTILE_YAML.values()]
    results = _judge(pool, yaml_task, [*bombs, GOOD_YAML])
    assert results[-1].status is ExecStatus.PASSED
    [good] = _judge(pool, json_task, [GOOD_JSON])
    assert good.status is ExecStatus.PASSED


def test_yaml_merge_keys_and_a_few_aliases_are_ordinary_yaml(pool, yaml_task):
    document = "base: &b {min: 1, max: 4}\nname: web\nport: 8080\nlimits:\n  <<: *b\n  max: 5\n"
    [result] = _judge(pool, yaml_task, [document])
    # Not a syntax error: the document parses (the schema then refuses the extra key `base`).
    assert result.status is ExecStatus.FAILED and result.tests[1].status is TestStatus.PASSED


def _run(stdout: bytes = b"", verdict: ProgramVerdict = ProgramVerdict.EXITED, exit_code: int | None = 0,
         stdout_bytes: int | None = None, error: str | None = None) -> ProgramRun:
    return ProgramRun(verdict, exit_code, None, stdout, b"Traceback...\nValueError: boom\n",
                      len(stdout) if stdout_bytes is None else stdout_bytes, 30, 0.01, 9000, 0.02, error=error)


@pytest.mark.parametrize("run, status", [
    (_run(b"not json"), ExecStatus.INTERNAL_ERROR),
    (_run(b'{"parsed": true, "results": []}'), ExecStatus.INTERNAL_ERROR),  # wrong number of results
    (_run(b'{"parsed": true, "results": [1, 2, 3]}'), ExecStatus.INTERNAL_ERROR),
    (_run(b'{"parsed": false}'), ExecStatus.INTERNAL_ERROR),
    (_run(b"[" * 100_000), ExecStatus.INTERNAL_ERROR),
    (_run(b"{}", stdout_bytes=10 << 20), ExecStatus.INTERNAL_ERROR),  # more was written than kept
    (_run(b'{"parsed": true, "results": [{"value": "' + b"x" * 5000 + b'"}, {"value": true}, {"value": true}]}'),
     ExecStatus.INTERNAL_ERROR),  # a value too large to be a verdict
    (_run(b"", exit_code=1), ExecStatus.INTERNAL_ERROR),  # the judge crashed
    (_run(b"", ProgramVerdict.TIMEOUT, None), ExecStatus.TIMEOUT),
    (_run(b"", ProgramVerdict.MEMORY, 1), ExecStatus.FAILED),
    (_run(b"", ProgramVerdict.INTERNAL_ERROR, None, error="worker died"), ExecStatus.INTERNAL_ERROR),
    (_run(b'{"parsed": true, "results": [{"value": true}, {"value": true}, {"failed": "min > max"}]}'),
     ExecStatus.FAILED),
    (_run(b'{"parsed": true, "results": [{"value": true}, {"value": true}, {"value": true}]}'), ExecStatus.PASSED),
])
def test_a_missing_or_malformed_judge_reply_is_a_verdict(yaml_task, run, status):
    result = judged(yaml_task, run)
    assert result.status is status
    assert len(result.tests) == 3


def test_a_document_at_the_bounds_is_judged_in_linear_time(pool, yaml_task):
    """About 11,500 values under 64,000 characters, with checks that compare every value with every other
    (distinct, subset, start order): sets keep them linear, so the judge needs little CPU."""
    names = [f"s{i}" for i in range(2_300)]
    services = [{"n": n, "d": [names[i - 1]] if i else []} for i, n in enumerate(names)]
    document = json.dumps({"services": services}, separators=(",", ":"))
    assert len(document) < 64_000
    checks = [{"op": "distinct", "path": ["services", "*", "n"]},
              {"op": "subset", "path": ["services", "*", "d", "*"], "of": ["services", "*", "n"]},
              {"op": "ordered_deps", "items": ["services", "*"], "name": ["n"], "deps": ["d", "*"]}]
    task = replace(yaml_task, entry_point="json", test_cases=tuple(TestCase((c,), True) for c in checks),
                   hidden_test_cases=())
    [result] = _judge(pool, task, [document])
    assert result.status is ExecStatus.PASSED, result
    assert result.cpu_time_s < 2.0
