"""Hostile tool-call answers: calls never reach real resources (files, network, processes), and every oversized,
over-deep, non-finite, looping or ill-named plan is a bounded verdict, never a crash or a run past the judge's limits."""

from __future__ import annotations

import json
import socket

import pytest

from spade.kinds import kind_of
from spade.kinds.tool_call.judge import MAX_CALLS
from spade.kinds.tool_call.run import decode_reply, execute, verdict
from spade.records import ExecStatus, Task, TestCase, TestStatus
from spade.sandbox.program import ProgramRun, ProgramVerdict

STATE = {"files": {"notes/a.txt": "hello"}, "pages": {"https://intranet/a": "page"}, "kv": {"a": "1"}}
TASK = Task("tools/adversarial", "Read notes/a.txt.", "read_file, fetch_url, kv_get, kv_set", "tool_calls", 0.5,
            test_cases=(TestCase((STATE,), {"answer": {"path": "notes/a.txt", "content": "hello"}, "state": STATE}),),
            reference_solution='[{"name": "read_file", "arguments": {"path": "notes/a.txt"}}]', kind="tool_call")


def _plan(*calls):
    return json.dumps([{"name": n, "arguments": a} for n, a in calls])


def _run(pool, *answers):
    return execute(pool, [(TASK, a) for a in answers])


def test_the_right_plan_passes(pool):
    assert _run(pool, TASK.reference_solution)[0].passed


@pytest.mark.parametrize("name", ["__class__", "__import__", "__builtins__", "read_file.__globals__", "os.system",
                                  "subprocess.run", "eval", "get_weather", "TOOLS", "", "read_file "])
def test_a_call_to_anything_but_an_offered_tool_runs_nothing(pool, name):
    result = _run(pool, _plan((name, {"path": "notes/a.txt"})))[0]
    assert not result.passed
    assert result.status in (ExecStatus.FAILED, ExecStatus.SYNTAX_ERROR)
    assert result.tests[0].status in (TestStatus.WRONG_ANSWER, TestStatus.NOT_RUN)
    error = result.tests[0].error or ""
    assert "unknown_tool" in error or "no name" in error


def test_file_paths_are_keys_of_the_simulated_drive_never_opened(pool, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-CONTENT")
    paths = [str(secret), "/etc/passwd", "../../../../etc/shadow", "/proc/self/environ", f"file://{secret}"]
    results = _run(pool, *[_plan(("read_file", {"path": p})) for p in paths])
    for result in results:
        got = result.tests[0].got or ""
        assert result.status is ExecStatus.FAILED and "no file" in got
        assert "TOP-SECRET" not in got and "root:" not in got
        assert not {"file_access", "syscall_denied"} & set(result.events)
    assert kind_of(TASK).screen(_plan(("read_file", {"path": "/etc/shadow"}))) == ("credentials",)


def test_urls_are_keys_of_the_simulated_intranet_never_fetched(pool):
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(4)
        server.settimeout(0.5)
        port = server.getsockname()[1]
        urls = [f"http://127.0.0.1:{port}/", f"http://localhost:{port}/x", "file:///etc/passwd", "ftp://10.0.0.1/a"]
        results = _run(pool, *[_plan(("fetch_url", {"url": u})) for u in urls])
        with pytest.raises(TimeoutError):  # nobody connected
            server.accept()
    for url, result in zip(urls, results):
        assert json.loads(result.tests[0].got)["answer"] == {"url": url, "status": 404, "body": ""}
        assert "socket" not in result.events


@pytest.mark.parametrize(("answer", "fragment"), [
    ("[" * 9000 + "]" * 9000, "nests deeper"),
    (json.dumps([{"name": "kv_get", "arguments": json.dumps({"key": [[[[[[[[[[[[["a"]]]]]]]]]]]]]})}]), "nests deeper"),
    ('[{"name": "kv_get", "arguments": {"key": NaN}}]', "not JSON"),
    ('[{"name": "kv_get", "arguments": {"key": Infinity}}]', "not JSON"),
    ('[{"name": "kv_get", "arguments": {"key": ' + "9" * 5000 + "}}]", "not JSON"),
    (json.dumps([{"name": "kv_get", "arguments": "not an object"}]), "not JSON"),
    (json.dumps({"tool_calls": "x"}), "list of calls"),
])
def test_malformed_or_over_deep_answers_are_format_failures(pool, answer, fragment):
    result = _run(pool, answer)[0]
    assert result.status is ExecStatus.SYNTAX_ERROR and result.tests[0].status is TestStatus.NOT_RUN
    assert fragment in result.load_error


@pytest.mark.parametrize(("calls", "fragment"), [
    ([("kv_get", {"key": 12.5})], "is not of type string"),
    ([("kv_get", {"key": True})], "is not of type string"),
    ([("kv_get", {"key": "k" * 5000})], "outside the allowed length"),
    ([("kv_get", {"key": "a", "extra": 1})], "unknown argument"),
    ([("kv_get", {})], "lacks the required argument"),
    ([("kv_set", {"key": "a", "value": "$0.value"})], "bad_reference"),  # itself: no loops
    ([("kv_get", {"key": "$1.key"}), ("kv_get", {"key": "a"})], "bad_reference"),  # a later call
    ([("kv_get", {"key": "a"}), ("kv_get", {"key": "$0.__class__"})], "unresolved_reference"),
    ([("kv_get", {"key": "a"}), ("kv_get", {"key": "$0"})], "is not of type string"),  # an object where a string goes
])
def test_ill_typed_looping_or_dangling_calls_are_wrong_answers(pool, calls, fragment):
    result = _run(pool, _plan(*calls))[0]
    assert result.status is ExecStatus.FAILED and fragment in (result.tests[0].error or "")


def test_an_overflowing_number_is_out_of_range_not_infinity(pool):
    answer = '[{"name": "kv_set", "arguments": {"key": "a", "value": "b"}}, {"name": "kv_get", "arguments": {"key": 1e999}}]'
    assert "inf is not of type string" in _run(pool, answer)[0].tests[0].error


def test_enormous_plans_are_refused_by_size_or_length_without_running_long(pool):
    long_plan, huge = _run(pool, _plan(*[("kv_get", {"key": "a"})] * 300), _plan(*[("kv_get", {"key": "a"})] * 2000))
    assert "too_many_calls" in long_plan.tests[0].error and f"at most {MAX_CALLS}" in long_plan.tests[0].error
    assert huge.status is ExecStatus.SYNTAX_ERROR and huge.cpu_time_s == 0  # never sent to the sandbox
    writes = _plan(*[("kv_set", {"key": f"k{i}", "value": "v" * 2000}) for i in range(MAX_CALLS)])
    result = _run(pool, writes)[0]
    assert result.status is ExecStatus.FAILED and result.wall_time_s < 5


def test_a_hostile_state_in_a_task_file_is_a_verdict_not_a_crash(pool):
    task = Task("tools/bad-state", "x", "kv_get", "tool_calls", 0.5, kind="tool_call",
                test_cases=(TestCase(({"kv": ["not", "a", "dict"]},), None), TestCase(([1, 2],), None)))
    result = execute(pool, [(task, _plan(("kv_get", {"key": "a"})))])[0]
    assert [t.status for t in result.tests] == [TestStatus.WRONG_ANSWER] * 2
    assert "tool_failed" in result.tests[0].error and "bad_state" in result.tests[1].error


def _program(stdout: bytes, verdict_: ProgramVerdict = ProgramVerdict.EXITED, code: int | None = 0,
             size: int | None = None) -> ProgramRun:
    return ProgramRun(verdict_, code, None, stdout, b"", len(stdout) if size is None else size, 0, 0.01, 1000, 0.02)


@pytest.mark.parametrize("run", [
    _program(b"not json"),
    _program(b'{"plans": []}'),
    _program(b'{"plans": [{"digests": ["a"], "outcomes": [1, 2]}]}'),
    _program(b"[" * 100_000),
    _program(b'{"plans": [{"format": 3}]}'),
    _program(b'{"plans": [{"digests": ["a"]}]}', size=10 << 20),  # cut off
    _program(b"", ProgramVerdict.TIMEOUT, None),
    _program(b"", ProgramVerdict.EXITED, 1),
])
def test_a_missing_malformed_or_cut_off_judge_reply_is_an_internal_error(run):
    assert isinstance(decode_reply(run, 1, 1), str)
    result = verdict(TASK, TASK.reference_solution, run)
    assert result.status is ExecStatus.INTERNAL_ERROR and result.tests[0].status is TestStatus.INTERNAL_ERROR
