"""Dynamic validation against the real sandbox: expected values come from running the reference."""

from dataclasses import replace

from spade.config import ExecutorConfig, GenerationConfig
from spade.generate import TaskDraft, draft_task
from spade.records import ExecStatus, Task, TestCase
from spade.sandbox import SandboxPool
from spade.validate.dynamic import validate_drafts, validate_tasks

CFG = GenerationConfig(reference_time_limit_s=0.5)
SUM = "def total(xs: list[int]) -> int:\n    acc = 0\n    for x in xs:\n        if x % 2 == 0:\n            acc += x\n    return acc\n"


def draft(reference=SUM, inputs=(([1, 2],), ([-3, 4],), ([5],), ([0, 6, -1],)), family=None, params=None):
    return TaskDraft(
        task_id="hand-1", description="Return the sum of the even numbers in xs.",
        signature="def total(xs: list[int]) -> int:", entry_point="total", difficulty=0.2, tags=("list",),
        public_inputs=tuple(inputs[:1]), hidden_inputs=tuple(inputs[1:]), reference_solution=reference,
        family=family, params=params or {}, provenance={"source": "test"},
    )


def one(d, pool, cfg=CFG):
    (outcome,) = validate_drafts([d], pool, cfg)
    return outcome


def test_expected_values_come_from_running_the_reference(pool):
    outcome = one(draft(), pool)
    assert outcome.accepted, outcome.details
    assert [t.expected for t in outcome.task.all_tests] == [2, 4, 0, 6]
    assert outcome.task.reference_cpu_s > 0
    assert pool.score(outcome.task, SUM).status is ExecStatus.PASSED


def test_hidden_tests_are_at_least_half(pool):
    d = replace(draft(), public_inputs=(([1],), ([2],), ([3, -2],)), hidden_inputs=(([4, 5],),))
    outcome = one(d, pool)
    assert outcome.accepted, outcome.details
    task = outcome.task
    assert len(task.hidden_test_cases) >= len(task.test_cases)


def test_a_raising_reference_is_rejected(pool):
    outcome = one(draft(SUM.replace("return acc", "return acc // (len(xs) - 1)")), pool)
    assert outcome.reasons == ("reference_raises",)
    assert "ZeroDivisionError" in outcome.details[0]


def test_a_hanging_reference_is_rejected(pool):
    outcome = one(draft(SUM.replace("    return acc", "    while acc >= 0:\n        acc += 1\n    return acc")), pool)
    assert outcome.reasons == ("reference_timeout",)


def test_a_nondeterministic_reference_is_rejected(pool):
    ref = "import random\n\ndef total(xs: list[int]) -> int:\n    return sum(xs) + random.randrange(10**9)\n"
    assert one(draft(ref), pool).reasons == ("nondeterministic",)


def test_a_reference_whose_answer_depends_on_the_str_hash_seed_is_rejected():
    # One worker: both runs of the reference would share its hash seed but for the second run's own seed.
    ref = "def total(xs: list[int]) -> int:\n    return sum(xs) + ord(next(iter({chr(97 + i) for i in range(26)})))\n"
    with SandboxPool(ExecutorConfig(workers=1)) as single:
        outcome = one(draft(ref), single)
        assert outcome.reasons == ("nondeterministic",), outcome.details
        assert one(draft(), single).accepted


def test_a_reference_returning_a_set_is_rejected_as_not_json(pool):
    ref = "def total(xs: list[int]) -> int:\n    return set(xs)\n"
    assert one(draft(ref), pool).reasons == ("non_json_output",)


def test_a_reference_returning_the_wrong_type_is_rejected(pool):
    ref = "def total(xs: list[int]) -> int:\n    return str(sum(xs))\n"
    assert one(draft(ref), pool).reasons == ("return_type_mismatch",)


def test_tests_that_catch_no_mutants_are_rejected_as_weak(pool):
    weak = draft(inputs=(([],), ([],)))
    outcome = one(weak, pool)
    assert outcome.reasons == ("weak_tests",)
    assert outcome.kill_ratio is not None and outcome.kill_ratio < CFG.mutant_kill_ratio


def test_a_family_is_asked_for_probe_inputs_before_rejecting_weak_tests(pool):
    real = next(d for d in (draft_task("list_aggregate", 0.0, 0, i, 3, 5) for i in range(50)) if d.params["op"] == "sum")
    weak = replace(real, public_inputs=(([],),), hidden_inputs=(([0],),))
    outcome = one(weak, pool)
    assert outcome.accepted, outcome.details
    assert len(outcome.task.hidden_test_cases) > 1
    assert outcome.task.params["mutant_kill_ratio"] >= CFG.mutant_kill_ratio


def test_a_file_task_must_reproduce_its_stated_expected_values(pool):
    task = Task(task_id="f1", description="Sum.", signature="def total(xs: list[int]) -> int:", entry_point="total",
                difficulty=0.1, test_cases=(TestCase(([1, 2],), 2), TestCase(([4],), 5), TestCase(([-1],), 0)),
                reference_solution=SUM)
    (outcome,) = validate_tasks([task], pool, CFG.model_copy(update={"max_mutants": 0}))
    assert outcome.reasons == ("expected_mismatch",)
    assert outcome.details[0].startswith("1 of 3")


def test_a_file_task_without_reference_gets_static_checks_only():
    task = Task(task_id="f2", description="Sum.", signature="def total(xs: list[int]) -> int:", entry_point="total",
                difficulty=0.1, test_cases=(TestCase(([1, 2],), 3),))
    (outcome,) = validate_tasks([task], None, CFG)
    assert outcome.accepted and outcome.notes[0].startswith("static_only")
    (bad,) = validate_tasks([replace(task, entry_point="nope")], None, CFG)
    assert bad.reasons == ("entry_point_mismatch",)


TRANSPOSE = "def transpose(m: list[list[int]]) -> list[list[int]]:\n    return [list(r) for r in zip(*m)]\n"


def matrix_task(matrices, reference=TRANSPOSE):
    tests = tuple(TestCase((m,), [list(r) for r in zip(*m)]) for m in matrices)
    return Task(task_id="transpose", description="Transpose the matrix m.", entry_point="transpose",
                signature="def transpose(m: list[list[int]]) -> list[list[int]]:", difficulty=0.2,
                test_cases=tests[:1], hidden_test_cases=tests[1:], reference_solution=reference)


def test_a_reference_without_mutants_is_not_passed_when_echoing_the_input_passes_its_tests(pool):
    symmetric = matrix_task([[[1, 2], [2, 1]], [[5]], [[0, 3], [3, 4]], [[1, 0, 2], [0, 1, 0], [2, 0, 1]]])
    (outcome,) = validate_tasks([symmetric], pool, CFG)
    assert outcome.reasons == ("weak_tests",), outcome
    assert pool.score(symmetric, "def transpose(m):\n    return m\n").score == 1.0  # what the verdict is about
    sound = matrix_task([[[1, 2], [3, 4]], [[5, 6, 7]], [[0], [8]], [[1, 0, 2], [4, 1, 0], [2, 9, 1]]])
    (accepted,) = validate_tasks([sound], pool, CFG)
    assert accepted.accepted, accepted.details
    assert pool.score(accepted.task, TRANSPOSE).score == 1.0
    assert pool.score(accepted.task, "def transpose(m):\n    return m\n").score < 1.0


def test_a_task_with_nothing_to_measure_its_tests_by_is_rejected(pool):
    task = Task(task_id="nothing", description="Say hi.", signature="def hi() -> str:", entry_point="hi",
                difficulty=0.1, test_cases=(TestCase((), "hi"),), reference_solution="def hi() -> str:\n    return 'hi'\n")
    (outcome,) = validate_tasks([task], pool, CFG)
    assert outcome.reasons == ("no_mutants",), outcome
    assert outcome.kill_ratio is None


UNREACHABLE = ("def magnitude(x: int) -> int:\n    if x < 0:\n        return -x\n    if x < -5:\n        return 0\n"
               "    return x\n")


def test_a_mutant_in_an_unreachable_branch_is_recognised_as_equivalent_by_probe_inputs(pool):
    tests = tuple(TestCase((x,), abs(x)) for x in (3, -2, 0, 7, -9, 1, -1))
    task = Task(task_id="magnitude", description="Return |x|.", signature="def magnitude(x: int) -> int:",
                entry_point="magnitude", difficulty=0.1, test_cases=tests[:2], hidden_test_cases=tests[2:],
                reference_solution=UNREACHABLE)
    (outcome,) = validate_tasks([task], pool, CFG)
    assert outcome.accepted, outcome.details
    assert outcome.task.params["mutants_equivalent"] >= 1 and outcome.task.all_tests == task.all_tests
    assert pool.score(outcome.task, "def magnitude(x):\n    return abs(x)\n").score == 1.0
    (no_probes,) = validate_tasks([task], pool, CFG.model_copy(update={"probe_inputs": 0}))
    assert no_probes.reasons == ("weak_tests",)  # without probes the unreachable branch's mutants count against it
