"""Hostile programs get bounded verdicts: floods, reading past the input, forking, sleeping, hard-coding, forged
exit codes, memory, bytes that are not text. And hostile references are refused by validation."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest

from spade.config import ExecutorConfig, GenerationConfig
from spade.kinds import kind_of, validate_tasks
from spade.kinds.program.run import MAX_OUTPUT_CAP
from spade.records import ExecStatus, TestStatus
from spade.sandbox import SandboxPool
from tests.kinds.program.helpers import program_task

ANSWER = "import sys\nd = sys.stdin.read().split()\nn = list(map(int, d[1:]))\nprint(sum(n), max(n))\n"

HOSTILE = {
    "stdout_flood": ("while True:\n    print('x' * 10000)\n", {TestStatus.TIMEOUT, TestStatus.WRONG_ANSWER}),
    "right_answer_then_flood": (ANSWER + "print(' ' * 10**7)\n", {TestStatus.WRONG_ANSWER}),
    "reads_past_stdin": ("input()\ninput()\ninput()\nprint(6, 3)\n", {TestStatus.EXCEPTION}),
    "forks": ("import os\nos.fork()\n" + ANSWER, {TestStatus.EXCEPTION}),
    "sleeps_past_the_limit": ("import time\ntime.sleep(100)\n" + ANSWER, {TestStatus.TIMEOUT}),
    "right_output_but_exit_code_1": (ANSWER + "import sys\nsys.exit(1)\n", {TestStatus.EXCEPTION}),
    "exhausts_memory": ("x = ' ' * (10**10)\n", {TestStatus.MEMORY}),
    "prints_bytes_not_text": ("import sys\nsys.stdout.buffer.write(b'\\xff\\xfe\\n')\n", {TestStatus.WRONG_ANSWER}),
    "looks_for_the_expected_output": ("import os\nprint(dict(os.environ))\nprint(os.listdir('.'), os.listdir('/tmp'))\n",
                                      {TestStatus.WRONG_ANSWER}),
    "kills_its_parent": ("import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n" + ANSWER,
                         {TestStatus.EXCEPTION}),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_program_gets_a_bounded_failing_verdict(pool, name):
    code, allowed = HOSTILE[name]
    task = program_task()
    started = time.monotonic()
    result = kind_of(task).execute(pool, [(task, code)])[0]
    assert time.monotonic() - started < 30
    assert not result.passed and result.score == 0.0
    assert result.tests[0].status in allowed
    assert all(t.got is None or len(t.got) < 300 for t in result.tests)


def test_a_timeout_ends_the_program_so_a_sleeper_costs_about_one_limit(pool):
    task = replace(program_task(), hidden_test_cases=program_task().hidden_test_cases * 4)  # 13 tests
    started = time.monotonic()
    result = kind_of(task).execute(pool, [(task, "import time\ntime.sleep(100)\n")])[0]
    assert result.status is ExecStatus.TIMEOUT
    assert time.monotonic() - started < 6  # 13 tests of a 1 s limit would be 13 s on one worker
    assert sum(t.status is TestStatus.NOT_RUN for t in result.tests) >= 10


def test_printing_the_shown_tests_output_fails_the_hidden_tests(pool):
    task = program_task()
    lookup = "import sys\nprint({'3\\n1 2 3\\n': '6 3'}.get(sys.stdin.read(), '0 0'))\n"
    result = kind_of(task).execute(pool, [(task, lookup)])[0]
    assert result.public_score == 1.0 and result.hidden_score < 0.5 and not result.passed


def test_a_huge_stderr_is_counted_not_kept_and_does_not_decide_the_verdict(pool):
    task = program_task()
    result = kind_of(task).execute(pool, [(task, ANSWER + "import sys\nsys.stderr.write('e' * 10**6)\n")])[0]
    assert result.passed  # stderr is not judged; only its size is recorded
    assert "output_flood" in result.events and result.output_bytes >= 4 * 10**6


def test_the_screen_flags_what_a_program_tries(pool):
    kind = kind_of(program_task())
    assert "shell" in kind.screen(HOSTILE["forks"][0])
    assert kind.screen(ANSWER) == ()


def test_output_kept_per_test_is_bounded():
    from spade.kinds.program.run import output_cap

    assert output_cap("6 3\n") == 4096 and output_cap("x" * (10 << 20)) == MAX_OUTPUT_CAP and output_cap(None) == 4096


HOSTILE_REFERENCES = {
    "nondeterministic": ("import random\nprint(random.random())\n", "nondeterministic"),
    "reference_timeout": ("import time\ntime.sleep(30)\n", "reference_timeout"),
    "output_too_large": ("print('x' * 200000)\n", "output_too_large"),
    "reference_raises": ("raise SystemExit(3)\n", "reference_raises"),
    "non_utf8_output": ("import sys\nsys.stdout.buffer.write(b'\\xff' + sys.stdin.read().encode())\n",
                        "non_utf8_output"),
}


def test_validation_refuses_hostile_or_broken_references(pool):
    tasks = [replace(program_task(reference=code), task_id=name) for name, (code, _) in HOSTILE_REFERENCES.items()]
    started = time.monotonic()
    outcomes = validate_tasks(tasks, pool, GenerationConfig(reference_time_limit_s=0.5))
    assert time.monotonic() - started < 30
    assert [o.reasons[0] for o in outcomes] == [reason for _, reason in HOSTILE_REFERENCES.values()]


def test_a_reference_whose_output_depends_on_the_str_hash_seed_is_refused():
    # One worker: both runs of the reference would share its hash seed but for the second run's own seed.
    code = "print(next(iter({chr(97 + i) for i in range(26)})))\n"
    with SandboxPool(ExecutorConfig(workers=1)) as single:
        (outcome,) = validate_tasks([program_task(reference=code)], single, GenerationConfig(reference_time_limit_s=0.5))
    assert outcome.reasons[:1] == ("nondeterministic",), outcome.details
