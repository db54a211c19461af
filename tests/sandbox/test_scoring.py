"""Functional scoring: verdicts per test and overall, limits, strict types, kernel-measured resources."""

from __future__ import annotations

import pytest

from spade.records import ExecStatus, Task, TestCase, TestStatus
from spade.sandbox import Job, OutcomeKind, to_json_value
from tests.sandbox.conftest import CORRECT, LIMIT, secret_task


def _task(cases: list[tuple[tuple, object]], hidden: int = 0) -> Task:
    tcs = tuple(TestCase(a, e) for a, e in cases)
    cut = len(tcs) - hidden
    return Task("t", "", "def f(x):", "f", 0.5, test_cases=tcs[:cut], hidden_test_cases=tcs[cut:])


def test_correct_candidate_passes_every_test(pool):
    result = pool.score(secret_task(), CORRECT)
    assert result.status is ExecStatus.PASSED and result.score == 1.0
    assert [t.hidden for t in result.tests] == [False, False, True, True]


def test_wrong_answer_reports_a_truncated_repr_of_what_came_back(pool):
    result = pool.score(_task([((1,), 2), ((2,), 3)]), "def f(x):\n    return 'y' * 1000 if x == 2 else x + 1\n")
    assert [t.status for t in result.tests] == [TestStatus.PASSED, TestStatus.WRONG_ANSWER]
    assert result.tests[1].got.startswith("'yyy") and len(result.tests[1].got) <= 200
    assert result.status is ExecStatus.FAILED and result.score == 0.5


def test_raising_candidate_reports_the_exception_type(pool):
    result = pool.score(_task([((1,), 1)]), "def f(x):\n    raise KeyError('secret message')\n")
    assert result.tests[0].status is TestStatus.EXCEPTION and result.tests[0].error == "KeyError"


def test_syntax_error_and_missing_entry_point_are_statuses(pool):
    task = _task([((1,), 1)])
    bad = pool.score(task, "def f(x) return x\n")
    assert bad.status is ExecStatus.SYNTAX_ERROR and bad.tests[0].status is TestStatus.NOT_RUN
    missing = pool.score(task, "def g(x):\n    return x\n")
    assert missing.status is ExecStatus.NO_ENTRY_POINT
    load = pool.score(task, "raise RuntimeError('boom')\ndef f(x):\n    return x\n")
    assert load.status is ExecStatus.LOAD_ERROR and "RuntimeError" in load.load_error


def test_the_first_per_test_timeout_ends_the_candidate_and_its_status_is_timeout(pool):
    code = "def f(x):\n    while x == 2:\n        pass\n    return x\n"
    task = _task([((1,), 1), ((2,), 2), ((3,), 3), ((4,), 4)])
    result = pool.score(task, code, time_limits=[LIMIT] * 4)
    assert [t.status for t in result.tests] == [TestStatus.PASSED, TestStatus.TIMEOUT, TestStatus.NOT_RUN,
                                                TestStatus.NOT_RUN]
    assert result.status is ExecStatus.TIMEOUT and result.timed_out  # the reward scores it 0 (docs/method.md#rewards)
    assert result.wall_time_s < 2 * LIMIT + 1.0  # one per-test limit, not one per remaining test
    assert pool.score(secret_task(), CORRECT).score == 1.0


def test_a_looping_candidate_costs_one_per_test_limit_not_one_per_test(pool):
    from spade.sandbox.job import Job

    loop = "def f(x):\n    while True:\n        pass\n"
    raw = pool.run(Job(loop, "f", tuple((i,) for i in range(10)), (LIMIT,) * 10, 256 << 20, total_timeout=30.0))
    assert [o.kind for o in raw.outcomes] == [OutcomeKind.TIMEOUT] + [OutcomeKind.NOT_RUN] * 9
    assert raw.wall_time_s < LIMIT + 1.0


def test_run_all_tests_after_timeout_runs_the_later_tests(pool):
    from spade.sandbox.job import Job

    code = "def f(x):\n    while x == 2:\n        pass\n    return x\n"
    job = Job(code, "f", ((1,), (2,), (3,)), (LIMIT,) * 3, 256 << 20, run_all_tests_after_timeout=True)
    assert [o.kind for o in pool.run(job).outcomes] == [OutcomeKind.VALUE, OutcomeKind.TIMEOUT, OutcomeKind.VALUE]
    assert pool.job_for(_task([((1,), 1)]), code).run_all_tests_after_timeout is False  # the config's default


def test_timeout_on_the_last_tests_makes_the_status_timeout(pool):
    code = "def f(x):\n    while x == 2:\n        pass\n    return x\n"
    result = pool.score(_task([((1,), 1), ((2,), 2)]), code, time_limits=[LIMIT] * 2)
    assert result.status is ExecStatus.TIMEOUT


def test_memory_limit_is_enforced_per_test(pool):
    code = "def f(x):\n    return len(bytearray(x << 20))\n"
    result = pool.score(_task([((1,), 1 << 20), ((1024,), 0), ((2,), 2 << 20)]), code)
    assert [t.status for t in result.tests] == [TestStatus.PASSED, TestStatus.MEMORY, TestStatus.PASSED]
    assert result.peak_memory_kb > 1000


def test_comparison_is_strict_about_types(pool):
    task = _task([((0,), 1), ((1,), 2), ((2,), [1, 2]), ((3,), 0.1), ((4,), "1")])
    code = "def f(x):\n    return [True, 2.0, (1, 2), 0.1 + 1e-12, 1][x]\n"
    statuses = [t.status for t in pool.score(task, code).tests]
    assert statuses == [TestStatus.WRONG_ANSWER, TestStatus.WRONG_ANSWER, TestStatus.PASSED, TestStatus.PASSED,
                        TestStatus.WRONG_ANSWER]


COUNTING = [((["b", "a", "b"],), {"a": 1, "b": 2}), ((["x"],), {"x": 1})]


@pytest.mark.parametrize("code", [
    "from collections import Counter\ndef f(xs):\n    return Counter(xs)\n",
    ("from collections import defaultdict\ndef f(xs):\n    d = defaultdict(int)\n    for x in xs:\n"
     "        d[x] += 1\n    return d\n"),
    "from collections import OrderedDict\ndef f(xs):\n    return OrderedDict((x, xs.count(x)) for x in xs)\n",
    "def f(xs):\n    return {x: xs.count(x) for x in xs}\n",
])
def test_a_standard_library_dict_subclass_is_compared_as_its_plain_value(pool, code):
    result = pool.score(_task(COUNTING), code)
    assert result.status is ExecStatus.PASSED and result.score == 1.0, result


@pytest.mark.parametrize("code", [
    "class D(dict):\n    def __eq__(self, o): return True\n    __hash__ = None\ndef f(xs):\n    return D()\n",
    "class D(dict):\n    def items(self): return [('a', 1), ('b', 2)]\ndef f(xs):\n    return D(z=9)\n",
    "class A:\n    def __eq__(self, o): return True\ndef f(xs):\n    return A()\n",
    "from collections import Counter\ndef f(xs):\n    return Counter(xs[:1])\n",
])
def test_a_subclass_is_judged_by_its_storage_whatever_it_claims(pool, code):
    result = pool.score(_task(COUNTING), code)
    assert result.tests[0].status in (TestStatus.WRONG_ANSWER, TestStatus.UNENCODABLE) and result.score < 1.0
    assert pool.score(_task(COUNTING), "def f(xs):\n    return {x: xs.count(x) for x in xs}\n").score == 1.0


def test_a_namedtuple_is_compared_as_its_tuple(pool):
    code = "from collections import namedtuple\nP = namedtuple('P', 'lo hi')\ndef f(xs):\n    return P(min(xs), max(xs))\n"
    assert pool.score(_task([(([3, 1, 2],), [1, 3])]), code).score == 1.0


def test_exit_codes_and_output_are_never_verdicts(pool):
    result = pool.score(_task([((1,), 1)]), "import sys\ndef f(x):\n    print('PASSED'); sys.exit(0)\n")
    assert result.tests[0].status is TestStatus.EXCEPTION and result.output_bytes == len("PASSED\n")


def test_run_returns_reference_values_for_validation(pool):
    code = "def f(x):\n    return (x, {x}, {'k': [x]})\n"
    raw = pool.run(Job(code, "f", ((1,), (2,)), (LIMIT, LIMIT), 256 << 20))
    assert raw.values == [(1, {1}, {"k": [1]}), (2, {2}, {"k": [2]})] and raw.all_returned
    assert to_json_value(raw.values[0]) == [1, [1], {"k": [1]}]
    assert raw.outcomes[0].kind is OutcomeKind.VALUE


def test_score_many_keeps_order_and_reports_progress(pool):
    task = secret_task()
    items = [(task, CORRECT if i % 2 == 0 else "def solve(n):\n    return 0\n") for i in range(6)]
    done: list[int] = []
    results = pool.score_many(items, on_done=done.append)
    assert [r.score for r in results] == [1.0, 0.0] * 3
    assert sorted(done) == list(range(6))


def test_ascore_works_from_asyncio(pool):
    import asyncio

    async def both():
        return await asyncio.gather(pool.ascore(secret_task(), CORRECT), pool.ascore(secret_task(), "x = 1\n"))

    ok, missing = asyncio.run(both())
    assert ok.score == 1.0 and missing.status is ExecStatus.NO_ENTRY_POINT


def test_stdlib_modules_the_zygote_did_not_preload_import_as_the_candidate_uid(pool):
    # The interpreter may live under a 0700 directory (pyenv under /root): the candidate must still import from it.
    code = ("import fractions, hashlib, decimal, statistics\n"
            "def f(s):\n    return hashlib.md5(s.encode()).hexdigest()[:4] + str(fractions.Fraction(1, 2))\n")
    task = _task([(("a",), "0cc11/2")])
    result = pool.score(task, code)
    assert result.status is ExecStatus.PASSED, result
