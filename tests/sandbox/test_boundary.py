"""The host side of the sandbox boundary: whatever a candidate's process sends (values, forged frames, a dead or
stalled worker), the host decodes it within bounds, compares it without raising, and gives that candidate a
verdict; the run goes on, and a correct candidate on the same pool still scores 1.0."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from spade.records import ExecStatus, Task, TestCase, TestStatus
from spade.sandbox import SandboxPool, values_equal
from spade.sandbox.inside import codec
from spade.sandbox.job import OutcomeKind
from spade.sandbox.layers import Plan
from spade.sandbox.pool import _raw_run
from tests.sandbox.conftest import CFG, CORRECT, kill_each_new_worker, secret_task

ROOT = Path(__file__).resolve().parents[2]
HALF = "def half(x):\n    return x / 2\n"


def half_task(n: int = 2) -> Task:
    cases = tuple(TestCase((float(i),), i / 2) for i in range(1, n + 1))
    return Task("half", "halve a number", "def half(x: float) -> float:", "half", 0.2, test_cases=cases)


# A candidate that writes its own result frames (4-byte big-endian length, kind byte, payload) straight to its
# result pipe, the only pipe among its fds above stderr, then spins until the zygote stops it.
FORGER = textwrap.dedent('''
    import os, stat

    def _result_fd():
        for fd in range(3, 256):
            try:
                if stat.S_ISFIFO(os.fstat(fd).st_mode):
                    return fd
            except OSError:
                pass

    def half(x):
        fd, payload = _result_fd(), PAYLOAD
        data = (len(payload) + 1).to_bytes(4, "big") + b"V" + payload
        for _ in range(FRAMES):
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        while True:
            pass
''')


def forger(payload: str, frames: int) -> str:
    return FORGER.replace("PAYLOAD", payload).replace("FRAMES", str(frames))


# -- comparison never raises ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(("got", "expected", "equal"), [
    (10 ** 400, 1.5, False), (-(10 ** 400), 1.5, False), (10 ** 400, float("inf"), False),
    (10 ** 400, float("nan"), False), (10 ** 308, 1e308, True), (2 ** 1024, 1.7976931348623157e308, True),
    (3, 3.0000001, True), (3, 3.00001, False), (2 ** 53 + 1, float(2 ** 53), True), (0, 1e-10, True),
])
def test_an_int_is_compared_with_a_float_exactly_and_never_overflows(got, expected, equal):
    assert values_equal(got, expected) is equal


beyond_floats = st.integers(min_value=2 ** 1024, max_value=10 ** 4000)
big_ints = st.integers(min_value=-(10 ** 600), max_value=10 ** 600) | beyond_floats | beyond_floats.map(int.__neg__)
decoded = st.recursive(
    st.none() | st.booleans() | st.integers() | big_ints | st.floats() | st.text(max_size=5) | st.binary(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
    | st.dictionaries(st.text(max_size=3) | st.integers() | st.floats(allow_nan=False), inner, max_size=3)
    | st.frozensets(st.integers() | big_ints | st.text(max_size=3) | st.floats(), max_size=4),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(decoded, decoded)
@example(10 ** 400, 1.5)
@example([1, {"k": -(10 ** 4000)}], [1, {"k": 0.5}])
def test_values_equal_never_raises_on_any_pair_of_decoded_values(got, expected):
    got = codec.decode(codec.encode(got))
    assert values_equal(got, expected) in (True, False)
    assert values_equal(expected, got) in (True, False)


def test_a_candidate_returning_an_int_beyond_the_float_range_gets_a_wrong_answer_not_a_crash(pool):
    result = pool.score(half_task(), "def half(x):\n    return 10 ** 400\n", (5.0, 5.0))
    assert result.status is ExecStatus.FAILED
    assert [t.status for t in result.tests] == [TestStatus.WRONG_ANSWER] * 2
    assert pool.score(half_task(), HALF).score == 1.0


def test_spade_eval_on_graded_samples_survives_a_float_overflow(pool, tmp_path):
    from spade.evaluate.evaluator import grade_samples
    from spade.evaluate.suites import load_suite

    samples = tmp_path / "samples.jsonl"
    samples.write_text(
        '{"task_id": "builtin/celsius_to_fahrenheit", "completion": "def celsius_to_fahrenheit(c):\\n'
        '    return 10 ** 400\\n"}\n'
        '{"task_id": "builtin/celsius_to_fahrenheit", "completion": "def celsius_to_fahrenheit(c):\\n'
        '    return c * 9 / 5 + 32\\n"}\n')
    report = grade_samples(pool, load_suite("builtin"), samples, suite="builtin")
    assert dict((t, (n, c)) for t, n, c in report.per_task) == {"builtin/celsius_to_fahrenheit": (2, 1)}


# -- decoding is bounded and linear ---------------------------------------------------------------------------------
def _colliding(n: int) -> str:
    """n distinct ints that all hash alike: k * (2**61 - 1) hashes to 0 for every k."""
    return "".join("," + str(k * (2 ** 61 - 1)) for k in range(1, n + 1))


@pytest.mark.parametrize("text", [
    '["S"' + _colliding(150_000) + "]", '["F"' + _colliding(150_000) + "]",
    '["D"' + "".join(f",{k * (2 ** 61 - 1)},0" for k in range(1, 90_000)) + "]",
    '["S",["T"' + _colliding(20) + "]," + ",".join(f'["T",{k * (2 ** 61 - 1)}]' for k in range(30)) + "]",
])
def test_decode_refuses_sets_and_dict_keys_whose_hashes_collide_in_linear_time(text):
    started = time.perf_counter()
    with pytest.raises(codec.Unencodable):
        codec.decode(text)
    assert time.perf_counter() - started < 2.0  # the quadratic build took minutes


def test_decode_keeps_sets_with_a_few_equal_hashes():
    assert codec.decode('["S",-1,-2,1,2]') == {-1, -2, 1, 2}  # hash(-1) == hash(-2)


@pytest.mark.parametrize("text", [
    '["L"' + ",0" * (codec.MAX_ITEMS + 1) + "]",  # flat: counted even without a call per item
    '["L"' + ',["L",0,0,0]' * (codec.MAX_ITEMS // 3) + "]",
    "[" * 5000 + "]" * 5000, '["L",' * (codec.MAX_DEPTH + 3) + "0" + "]" * (codec.MAX_DEPTH + 3),
    '["L",' + "9" * (codec.MAX_INT_DIGITS + 1) + "]", '["B"]', '["B",7]', "[7]", "[]", '["D",["L"],0]',
])
def test_decode_bounds_items_depth_and_digits_of_forged_text(text):
    with pytest.raises(codec.Unencodable):
        codec.decode(text)


def test_decode_bounds_int_digits_even_where_the_interpreter_limit_is_lifted():
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        with pytest.raises(codec.Unencodable, match="digits"):
            codec.decode('["L",' + "9" * 100_000 + "]")
        assert codec.decode('["L",-' + "9" * codec.MAX_INT_DIGITS + "]")[0] < 0
    finally:
        sys.set_int_max_str_digits(old)


def test_a_forged_hash_colliding_frame_is_unencodable_and_costs_the_host_no_time(pool):
    payload = '(\'["S"\' + "".join("," + str(k * (2**61 - 1)) for k in range(1, 150_001)) + "]").encode()'
    started = time.monotonic()
    result = pool.score(half_task(1), forger(payload, 1), (5.0,))
    assert time.monotonic() - started < 10  # minutes, holding the GIL, before
    assert [t.status for t in result.tests] == [TestStatus.UNENCODABLE]
    assert pool.score(half_task(1), HALF).score == 1.0


RSS_PROBE = textwrap.dedent('''
    import resource, sys
    from spade.config import ExecutorConfig
    from spade.records import Task, TestCase
    from spade.sandbox import SandboxPool
    code = sys.stdin.read()
    task = Task("half", "d", "def half(x):", "half", 0.2,
                test_cases=tuple(TestCase((float(i),), i / 2) for i in range(1, 11)))
    cfg = ExecutorConfig(workers=1, timeout=30.0, time_floor_s=10.0, memory_limit="256m")
    with SandboxPool(cfg) as pool:
        assert pool.score(task, "def half(x):\\n    return x / 2\\n").score == 1.0
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        result = pool.score(task, code)
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        again = pool.score(task, "def half(x):\\n    return x / 2\\n").score
    print(before // 1024, after // 1024, again, ",".join(t.status.value for t in result.tests))
''')


@pytest.mark.parametrize(("payload", "bound_mb"), [
    ('("[\\"L\\"" + ",1.5" * 999_990 + "]").encode()', 100),  # a million floats in each of ten 4 MB frames
    ('("[\\"L\\",\\"" + "x" * 3_999_000 + "\\"]").encode()', 100),  # one 4 MB string in each
])
def test_ten_forged_4_mb_frames_keep_the_host_peak_memory_bounded(payload, bound_mb):
    # In a fresh interpreter: its peak RSS (ru_maxrss) is this job's alone. Measured here: +76 MB for either
    # payload (the reply's text, then two decoded values); before, +428 MB (floats) and +115 MB (strings).
    proc = subprocess.run([sys.executable, "-c", RSS_PROBE], input=forger(payload, 10), capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    before, after, again, statuses = proc.stdout.split()
    assert int(after) - int(before) < bound_mb, (before, after)
    assert float(again) == 1.0
    assert statuses.split(",")[2:] == ["unencodable"] * 8  # past the job's value budget: never decoded


# -- a dead, stalled or babbling worker is its candidate's verdict ----------------------------------------------------
def _descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                ppid = int(open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    found, stack = set(), [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            found.add(child)
            stack.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_job_whose_worker_is_killed_on_both_tries_gives_internal_error_and_the_next_runs_on_a_replacement():
    with SandboxPool(CFG.model_copy(update={"workers": 1})) as pool:
        (worker,) = pool.worker_pids()
        tree = _descendants(worker) | {worker}
        sleeper = "import time\ndef solve(n):\n    time.sleep(0.4)\n    return 'x'\n"
        killer = kill_each_new_worker(pool, 2, 0.5)
        result = pool.score(secret_task(), sleeper)
        killer.join()
        assert len(killer.killed) == 2  # the job was tried again on the first one's successor
        assert result.status is ExecStatus.INTERNAL_ERROR and result.score == 0.0
        assert {t.status for t in result.tests} == {TestStatus.INTERNAL_ERROR}
        assert "internal_error" in result.events
        assert pool.score(secret_task(), CORRECT).score == 1.0
        assert pool.worker_pids() != [worker]
        deadline = time.monotonic() + 5
        while any(map(_alive, tree)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [pid for pid in tree if _alive(pid)]  # no process of the killed worker is left


GOOD_TEST = {"kind": "value", "value": '"x"'}
GOOD = {"tests": [GOOD_TEST], "load": None, "cpu": 0.01, "maxrss": 9000, "wall": 0.02, "out_bytes": 0,
        "output": "", "events": []}


@pytest.mark.parametrize("reply", [
    {}, [], 7, "text", {**GOOD, "tests": []}, {**GOOD, "tests": [GOOD_TEST, GOOD_TEST]}, {**GOOD, "tests": None},
    {**GOOD, "tests": [{"kind": "nonsense"}]}, {**GOOD, "tests": [{"kind": "value", "value": 5}]},
    {**GOOD, "tests": [{"kind": ["value"]}]}, {**GOOD, "tests": ["value"]}, {**GOOD, "cpu": "fast"},
    {**GOOD, "maxrss": -1}, {**GOOD, "wall": 1e300}, {**GOOD, "events": "socket"}, {**GOOD, "events": [1]},
    {**GOOD, "load": "yes"}, {**GOOD, "load": {"status": 3}}, {**GOOD, "output": None},
    {**GOOD, "tests": [{"kind": "internal_error"}]},
])
def test_a_malformed_reply_is_the_jobs_internal_error_not_an_exception(reply):
    raw, why = _raw_run(reply, 1)
    assert why and [o.kind for o in raw.outcomes] == [OutcomeKind.INTERNAL_ERROR]


def test_a_well_formed_reply_is_taken_as_it_is():
    raw, why = _raw_run(GOOD, 1)
    assert why == "" and raw.outcomes[0].value == "x" and raw.peak_memory_kb == 9000


def test_the_jobs_value_budget_makes_later_values_unencodable_undecoded():
    big = {"kind": "value", "value": '"' + "x" * 3_000_000 + '"'}
    raw, why = _raw_run({**GOOD, "tests": [big, big, big, GOOD_TEST]}, 4)
    assert why == ""
    assert [o.kind.value for o in raw.outcomes] == ["value", "value", "unencodable", "unencodable"]
    assert not math.isnan(raw.cpu_time_s)


class _TightCleanup(Plan):
    """The pool's plan, with a /tmp reset budget of 100 entries, so a candidate can outrun it."""

    def argv(self, uid: int, tmp: str, tmpfs_bytes: int) -> list[str]:
        argv = super().argv(uid, tmp, tmpfs_bytes)
        return [*argv[:-1], json.dumps(json.loads(argv[-1]) | {"cleanup_entries": 100})]


def test_a_worker_that_asks_to_be_recycled_is_replaced_in_its_slot_and_the_verdict_stands():
    with SandboxPool(CFG.model_copy(update={"workers": 1})) as pool:
        plan = pool.plan
        pool.plan = _TightCleanup(plan.layers, plan.uses_bwrap, plan.use_seccomp, plan.drop_uid)
        (first,) = pool.worker_pids()
        os.kill(first, signal.SIGKILL)  # its successor is started from the tight plan
        while _alive(first):
            time.sleep(0.01)
        assert pool.score(secret_task(), CORRECT).score == 1.0
        (tight,) = pool.worker_pids()
        litter = ('def solve(n):\n    for i in range(500):\n        open(f"/tmp/{n}-{i}", "w").close()\n'
                  '    return "SECRET-%d" % (n * 7919 % 100003)\n')
        assert pool.score(secret_task(), litter, (5.0,) * 4).score == 1.0  # the reply asked for a recycle
        (replaced,) = pool.worker_pids()
        assert replaced != tight and not _alive(tight)
        assert pool.score(secret_task(), CORRECT).score == 1.0


# -- what the sandbox observed reaches the reward ------------------------------------------------------------------
def test_observed_interference_and_peak_memory_enter_the_reward(pool):
    from spade.config import RewardConfig
    from spade.reward import compute_reward

    task, cfg = half_task(1), RewardConfig()
    clean = pool.score(task, HALF, (5.0,))
    assert clean.memory_limit_kb == CFG.memory_bytes // 1024
    assert compute_reward(task, HALF, clean, cfg).total == pytest.approx(1 + cfg.difficulty_bonus * task.difficulty)
    nosy = "def half(x):\n    print('hi')\n    open('/etc/passwd').read()\n    return x / 2\n"
    result = pool.score(task, nosy, (5.0,))
    assert result.score == 1.0 and {"stray_output", "file_access"} <= set(result.events)
    assert compute_reward(task, nosy, result, cfg).interference_penalty == cfg.interference_penalty
    hog = "def half(x):\n    hold = bytearray(150 << 20)\n    return x / 2\n"
    result = pool.score(task, hog, (5.0,))
    assert result.score == 1.0 and result.peak_memory_kb > 150 << 10
    assert 0 < compute_reward(task, hog, result, cfg).memory_penalty <= cfg.memory_weight
    assert pool.score(task, HALF, (5.0,)).score == 1.0


class _NoZygote(Plan):
    """A plan whose worker never starts: the replacement of a dead worker fails."""

    def argv(self, uid: int, tmp: str, tmpfs_bytes: int) -> list[str]:
        return ["/bin/sh", "-c", "echo 'no zygote here' >&2; echo 'second line' >&2; exit 1"]


def test_a_worker_that_cannot_be_replaced_is_an_infrastructure_error_in_one_line():
    from spade.errors import SandboxError

    with SandboxPool(CFG.model_copy(update={"workers": 1})) as pool:
        plan = pool.plan
        pool.plan = _NoZygote(plan.layers, plan.uses_bwrap, plan.use_seccomp, plan.drop_uid)
        (first,) = pool.worker_pids()
        os.kill(first, signal.SIGKILL)
        while _alive(first):
            time.sleep(0.01)
        with pytest.raises(SandboxError, match="could not be replaced") as caught:
            pool.score(secret_task(), CORRECT)
        assert "\n" not in str(caught.value) and "no zygote here" in str(caught.value)
