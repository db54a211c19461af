"""Inputs the environment adds to a proposal with too few calls (selfplay.complete_inputs), through the real
sandbox: chosen by running the program, outputs still from validation's own runs, and a program that answers
nothing still refused."""

from __future__ import annotations

import pytest

from spade.config import ExecutorConfig, GenerationConfig, load_config
from spade.kinds.code_reasoning.proposer_role import proposer_task
from spade.sandbox import SandboxPool
from spade.selfplay.inputs import WANT, candidate_groups, positional_arity
from spade.selfplay.judging import judge, judged

CFG = GenerationConfig()


@pytest.fixture(scope="module")
def pool():
    with SandboxPool(ExecutorConfig(workers=2)) as p:
        yield p


def _judge(pool, bodies: dict[str, str], complete: bool, mode: str = "induction"):
    prompt = proposer_task("proposer-0-0", 0.3, [], mode)
    entries = {name: judged(f"p-{name}", prompt, body, True) for name, body in bodies.items()}
    judge(list(entries.values()), pool, CFG, iteration=0, checkpoint=None, model="m", complete=complete)
    return entries


def _expected(program: str, args: list) -> object:
    scope: dict = {}
    exec(program, scope)  # the test's own program, not a proposal's
    return scope["f"](*args)


NO_CALLS = "s):\n    return s.upper() + s[::-1]\n```"
ONE_CALL = "xs):\n    return sorted(xs)[::2]\n\nprint(f([5, 1, 4]))\n```"
RAISES = "x):\n    raise ValueError(x)\n```"
CONSTANT = "x):\n    return 7\n```"


def test_without_completion_a_proposal_without_calls_or_with_one_is_refused(pool):
    got = _judge(pool, {"none": NO_CALLS, "one": ONE_CALL}, complete=False)
    assert got["none"].reason == "no_inputs" and not got["none"].valid
    assert got["one"].reason == "too_few_inputs" and not got["one"].valid


def test_a_proposal_without_calls_gets_inputs_of_the_type_its_program_answers(pool):
    entry = _judge(pool, {"none": NO_CALLS}, complete=True)["none"]
    assert entry.valid and entry.reason == "ok" and entry.inputs_added == WANT
    task = entry.task
    assert task is not None and task.provenance["inputs_added"] == WANT
    cases = task.all_tests
    assert len(cases) == WANT and all(len(c.args) == 1 and isinstance(c.args[0], str) for c in cases)
    program = "def f(s):\n    return s.upper() + s[::-1]\n"
    for c in cases:  # outputs are the program's own, from validation's run
        assert c.expected == _expected(program, list(c.args))


def test_a_proposal_with_one_call_keeps_it_first_and_gets_edits_of_it(pool):
    entry = _judge(pool, {"one": ONE_CALL}, complete=True)["one"]
    assert entry.valid and entry.inputs_added == WANT - 1
    args = [list(c.args) for c in entry.task.all_tests]
    assert args[0] == [[5, 1, 4]]
    assert all(isinstance(a[0], list) and all(isinstance(x, int) for x in a[0]) for a in args)
    assert len({str(a) for a in args}) == len(args)


def test_a_program_that_answers_no_candidate_or_only_a_constant_stays_refused(pool):
    got = _judge(pool, {"raises": RAISES, "constant": CONSTANT}, complete=True)
    assert got["raises"].reason == "no_inputs" and not got["raises"].valid and got["raises"].inputs_added == 0
    assert got["constant"].reason == "no_inputs" and not got["constant"].valid


def test_enough_calls_of_its_own_are_left_as_written(pool):
    body = "xs):\n    return sum(xs) * 2\n\nprint(f([1, 2]))\nprint(f([3]))\nprint(f([4, 5, 6]))\nprint(f(5))\n```"
    entry = _judge(pool, {"three": body}, complete=True, mode="deduction")["three"]
    assert entry.valid and entry.inputs_added == 0
    assert [list(c.args) for c in entry.task.all_tests][0] in ([[1, 2]], [[3]], [[4, 5, 6]])
    assert [5] not in [list(c.args) for c in entry.task.all_tests]  # the call it raises on is left out


def test_candidate_groups_are_typed_deterministic_and_vary_every_argument():
    groups = candidate_groups(2, "sp-ind-abc")
    assert groups == candidate_groups(2, "sp-ind-abc")
    assert any(all(isinstance(a[0], list) and isinstance(a[1], int) for a in g) for g in groups)
    for g in groups:
        for j in range(2):
            assert len({repr(a[j]) for a in g}) > 1
    assert candidate_groups(0, "x") == [] and len(candidate_groups(5, "x")) == 1


@pytest.mark.parametrize(("program", "arity"), [("def f(a, b=2):\n    return a\n", 1),
                                                ("def f(*, k):\n    return k\n", -1),
                                                ("def g(a):\n    return a\n", -1), ("def f(:\n", -1),
                                                ("def f(a, /, b, *rest):\n    return a\n", 2)])
def test_positional_arity_counts_the_arguments_a_call_must_give(program, arity):
    assert positional_arity(program, "f") == arity


def test_the_switch_is_one_validated_config_key():
    assert load_config(None).selfplay.complete_inputs is False
    assert load_config(None, {"selfplay.complete_inputs": True}).selfplay.complete_inputs is True
