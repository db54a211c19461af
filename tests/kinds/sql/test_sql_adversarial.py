"""Hostile SQL answers: escaping the in-memory database (ATTACH, load_extension, pragmas, VACUUM INTO, file
functions), writing, several statements, endless recursion, cartesian blow-ups, huge results and memory bombs are
all refused or bounded inside the sandbox, end as a verdict (never a pass, never an exception), in bounded time,
and leave the host untouched. The judge's output is data: malformed replies are internal errors, not crashes."""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path

import pytest

from spade.config import RewardConfig
from spade.kinds import kind_of
from spade.kinds.sql import run
from spade.kinds.sql.execute import judge
from spade.records import Candidate, ExecStatus, TestStatus
from spade.rollout import Grader
from spade.sandbox.program import ProgramRun, ProgramVerdict

HOSTILE = {
    "attach_host_file": ("ATTACH DATABASE '{path}' AS host", ExecStatus.SYNTAX_ERROR),
    "attach_in_a_query": ("SELECT * FROM (SELECT 1); ATTACH '{path}' AS host", ExecStatus.SYNTAX_ERROR),
    "detach_main": ("DETACH main", ExecStatus.SYNTAX_ERROR),
    "load_extension": ("SELECT load_extension('/usr/lib/x86_64-linux-gnu/libsqlite3.so.0')", ExecStatus.FAILED),
    "readfile": ("SELECT readfile('/etc/passwd')", ExecStatus.FAILED),
    "fsdir_table": ("SELECT name FROM fsdir('/etc')", ExecStatus.FAILED),
    "shared_cache_uri": ("SELECT * FROM \"file:/etc/passwd\".t", ExecStatus.FAILED),
    "writing_pragma": ("PRAGMA writable_schema = ON", ExecStatus.SYNTAX_ERROR),
    "pragma_function": ("SELECT * FROM pragma_database_list", ExecStatus.FAILED),
    "vacuum_into_host": ("VACUUM INTO '{path}'", ExecStatus.SYNTAX_ERROR),
    "drop_table": ("DROP TABLE {table}", ExecStatus.SYNTAX_ERROR),
    "delete_in_a_cte": ("WITH x AS (SELECT 1) DELETE FROM {table}", ExecStatus.FAILED),
    "insert_then_select": ("INSERT INTO {table} SELECT * FROM {table}", ExecStatus.SYNTAX_ERROR),
    "two_statements": ("SELECT 1; SELECT 2", ExecStatus.SYNTAX_ERROR),
    "endless_recursion": ("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r",
                          ExecStatus.TIMEOUT),
    "cartesian_blow_up": (("SELECT count(*) FROM {table} a, {table} b, {table} c, {table} d, {table} e, {table} f, "
                          "{table} g, {table} h, {table} i, {table} j"), ExecStatus.TIMEOUT),
    "huge_result": ("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r LIMIT 5000000) SELECT n FROM r",
                    ExecStatus.FAILED),
    "huge_values": ("SELECT printf('%.*c', 900000, 'x') FROM {table}", ExecStatus.FAILED),
    "blob_bomb": ("SELECT zeroblob(2000000000)", ExecStatus.FAILED),
    "nul_byte": ("SELECT name FROM {table}\0", ExecStatus.FAILED),
    "nul_hides_attach": ("SELECT 1\0; ATTACH '{path}' AS host", ExecStatus.SYNTAX_ERROR),
    "lone_surrogate": ("SELECT '\udc80' FROM {table}", ExecStatus.FAILED),
    "temp_table": ("WITH x AS (SELECT 1) SELECT * FROM x UNION SELECT count(*) FROM sqlite_temp_master", None),
    "long_string": (("WITH RECURSIVE r(n, s) AS (SELECT 1, 'x' UNION ALL SELECT n + 1, s || printf('%.*c', 100000, "
                    "'y') FROM r WHERE n < 100000) SELECT max(length(s)) FROM r"), ExecStatus.FAILED),
    "memory_bomb": (("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5000) "
                    "SELECT count(*) FROM (SELECT DISTINCT printf('%.*c', 500000, 'y') || n FROM r)"), None),
}


@pytest.fixture(scope="module")
def host_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("host") / "secret.db"
    path.write_bytes(b"host data")
    return path


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_sql_is_refused_or_bounded_and_never_passes(pool, filter_task, host_file, name):
    template, status = HOSTILE[name]
    table = filter_task.test_cases[0].args[0]["tables"][0]["name"]
    answer = template.format(path=host_file, table=table)
    started = time.monotonic()
    (rollout,) = Grader(pool, RewardConfig()).grade_candidates(
        [filter_task], [Candidate("c", filter_task.task_id, answer, answer, "m", "")])
    took = time.monotonic() - started
    result = rollout.result
    assert not rollout.passed and result.score == 0.0
    if status is not None:
        assert result.status is status, result
    else:
        assert result.status in (ExecStatus.FAILED, ExecStatus.TIMEOUT), result
    assert took < 5 + 2 * run.SECONDS_PER_RUN * len(filter_task.all_tests)
    assert host_file.read_bytes() == b"host data"  # the host's file is untouched


def test_refusals_say_what_was_refused_and_escapes_are_interference(pool, filter_task):
    answers = ["SELECT load_extension('/tmp/x.so')", "ATTACH '/etc/passwd' AS p", "DROP TABLE x"]
    rollouts = Grader(pool, RewardConfig()).grade_candidates(
        [filter_task] * 3, [Candidate(str(i), filter_task.task_id, a, a, "m", "") for i, a in enumerate(answers)])
    extension, attach, drop = rollouts
    assert extension.result.tests[0].status is TestStatus.EXCEPTION
    assert "load_extension" in (extension.result.tests[0].error or "")
    assert {"sql_denied", "file_access"} <= set(extension.result.events)
    assert extension.reward.interference_penalty > 0 and extension.findings == ("sql_escape",)
    assert attach.findings == ("sql_escape",) and "SELECT" in (attach.result.load_error or "")
    assert drop.findings == ("sql_write",)


def test_a_timeout_ends_the_query_and_the_rest_are_not_run(pool, filter_task):
    answer = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r"
    (result,) = kind_of(filter_task).execute(pool, [(filter_task, answer)])
    assert [t.status for t in result.tests] == [TestStatus.TIMEOUT] + [TestStatus.NOT_RUN] * 7
    assert result.wall_time_s < run.SECONDS_PER_RUN + 5


def test_a_huge_result_is_cut_at_the_row_bound_in_the_judge(pool, filter_task):
    answer = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r LIMIT 5000000) SELECT n FROM r"
    (result,) = kind_of(filter_task).execute(pool, [(filter_task, answer)])
    assert all(t.error == "result_too_large" for t in result.tests)
    assert result.wall_time_s < 10


def _ran(stdout: bytes, verdict=ProgramVerdict.EXITED, exit_code=0) -> ProgramRun:
    return ProgramRun(verdict, exit_code, None, stdout, b"", len(stdout), 0, 0.01, 1000, 0.01)


@pytest.mark.parametrize("stdout", [
    b"", b"not json\n", b"[1, 2]\n", b'{"results": "x"}\n', b'{"results": [{"status": "ok"}]}\n',
    b'{"results": [{"status": "ok", "columns": ["a"], "rows": [[["int", "3"]]]}]}\n',
    b'{"results": [{"status": "passed"}]}\n', b"[" * 100_000 + b"\n",
    b'{"results": [{"status": "ok", "columns": ["a"], "rows": [[["int", 1, 2]]]}]}\n',
])
def test_a_malformed_judge_reply_is_an_internal_error_not_a_crash(filter_task, stdout):
    one = filter_task.__class__(**{**{f: getattr(filter_task, f) for f in filter_task.__dataclass_fields__},
                                   "hidden_test_cases": ()})
    one = one.__class__(**{**{f: getattr(one, f) for f in one.__dataclass_fields__},
                           "test_cases": filter_task.test_cases[:1]})
    result = judge(one, _ran(stdout))
    assert result.status is ExecStatus.INTERNAL_ERROR and not result.passed


def test_a_killed_judge_is_an_internal_error(filter_task):
    result = judge(filter_task, _ran(b"", ProgramVerdict.KILLED, None))
    assert result.status is ExecStatus.INTERNAL_ERROR and "killed" in (result.load_error or "")


def _judge_module():
    spec = importlib.util.spec_from_file_location("sql_judge", Path(run.__file__).with_name("judge.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("query, refused", [
    ("SELECT 1", False), ("select 1;", False), ("SELECT 1; -- done", False),
    ("/* c */ WITH x AS (SELECT 1) SELECT 2", False),
    ("VALUES (1)", False), ("SELECT ';' AS a", False), ('SELECT "a;b" FROM t', False), ("SELECT [x;y] FROM t", False),
    ("SELECT 1; SELECT 2", True), ("SELECT 1 /* ; */; DROP TABLE t", True), ("SELECT 1;\nATTACH 'x' AS y", True),
    ("-- SELECT\nDELETE FROM t", True), ("EXPLAIN SELECT 1", True), ("PRAGMA table_info(t)", True), ("", True),
    ("REPLACE INTO t VALUES (1)", True), ("SELECT 'x" + "y" * 30000 + "'", True),
])
def test_the_judge_refuses_anything_but_one_query_before_it_runs(query, refused):
    assert bool(_judge_module().refusal(query, run.LIMITS)) is refused
