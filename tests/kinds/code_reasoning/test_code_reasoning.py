"""The code_reasoning kind through the real sandbox: validation takes outputs from running the program, and each
mode's judge accepts right answers and refuses wrong, malformed and oversized ones."""

from __future__ import annotations

import pytest

from spade.config import GenerationConfig
from spade.generate.procedural import draft_task
from spade.kinds import KINDS, validate_drafts
from spade.kinds.code_reasoning.answer import MAX_ANSWER_BYTES, call_arguments, predicted_value
from spade.records import ExecStatus, TaskDraft

PROGRAM = "def f(xs, k):\n    return sorted(x * k for x in xs)[:3]\n"
CFG = GenerationConfig()


def draft(mode: str, program: str = PROGRAM, inputs=(([3, 1, 2], 2), ([5, -1], 3), ([], 1)), entry="f") -> TaskDraft:
    return TaskDraft(f"t-{mode}-{abs(hash(program)) % 10**8}", "Scale and sort, keep three.", "def f(xs, k)", entry, 0.2,
                     ("code_reasoning",), tuple(tuple(a) for a in inputs[:2]), tuple(tuple(a) for a in inputs[2:]),
                     program, params={"mode": mode}, kind="code_reasoning")


def task_of(pool, d: TaskDraft):
    outcome = validate_drafts([d], pool, CFG)[0]
    assert outcome.accepted, outcome.details
    return outcome.task


def judge(pool, task, *answers):
    kind = KINDS.get("code_reasoning")
    return [r for r in kind.execute(pool, [(task, kind.extract(task, a)) for a in answers])]


def test_deduction_expected_comes_from_running_the_program(pool):
    task = task_of(pool, draft("deduction"))
    assert task.test_cases[0].args == ([3, 1, 2], 2) and task.test_cases[0].expected == [2, 4, 6]
    prompt = KINDS.get("code_reasoning").prompt(task, 0)
    assert prompt.prefill.endswith("assert f([3, 1, 2], 2) == ") and prompt.stop == "line"
    right, wrong, junk, float_list = judge(pool, task, "[2, 4, 6]\n```", "[2, 4, 5]\n", "the answer is six", "(2, 4, 6)")
    assert right.passed and float_list.passed  # a tuple equals the JSON list
    assert not wrong.passed and wrong.status is ExecStatus.FAILED
    assert junk.status is ExecStatus.NO_ENTRY_POINT


def test_abduction_accepts_any_input_that_produces_the_output(pool):
    task = task_of(pool, draft("abduction"))
    prompt = KINDS.get("code_reasoning").prompt(task, 1)
    assert "[2, 4, 6]" in prompt.messages[-1]["content"] and "[3, 1, 2]" not in prompt.messages[-1]["content"]
    original, other, wrong, not_literal = judge(pool, task, "[3, 1, 2], 2) == [2, 4, 6]", "[1, 3, 2, 9], 2)",
                                                "[1], 2)", "__import__('os').getpid(), 1)")
    assert original.passed and other.passed  # [1, 3, 2, 9] * 2 sorted, first three: [2, 4, 6]
    assert not wrong.passed
    assert not not_literal.passed and not_literal.status is ExecStatus.NO_ENTRY_POINT


def test_induction_is_judged_on_hidden_pairs(pool):
    task = task_of(pool, draft("induction", inputs=(([3, 1, 2], 2), ([5, -1], 3), ([4, 4, 1, 0], -1), ([9], 0),
                                                    ([7, 8, 1, 2], 1))))
    assert task.hidden_test_cases and task.kind == "code_reasoning"
    good = "def f(xs, k):\n    return sorted(x * k for x in xs)[:3]\n```"
    hardcoded = ("def f(xs, k):\n" + "".join(f"    if xs == {c.args[0]!r}: return {c.expected!r}\n"
                                            for c in task.test_cases) + "    return []\n```")
    ok, bad = judge(pool, task, good, hardcoded)
    assert ok.passed and not bad.passed and bad.public_score == 1.0


def test_validation_rejects_constant_nondeterministic_and_non_json_programs(pool):
    bad = {"constant": "def f(xs, k):\n    return 1\n",
           "nondeterministic": "def f(xs, k):\n    return str(hash('spade'))\n",
           "non_json": "def f(xs, k):\n    return bytes(len(xs))\n",
           "unencodable": "def f(xs, k):\n    return object()\n",
           "raises": "def f(xs, k):\n    return xs[10]\n",
           "no_entry": "def g(xs, k):\n    return xs\n"}
    outcomes = validate_drafts([draft("deduction", program=p) for p in bad.values()], pool, CFG)
    reasons = [o.reasons[0] for o in outcomes]
    assert not any(o.accepted for o in outcomes)
    assert reasons == ["constant_output", "nondeterministic", "non_json_output", "reference_unencodable",
                       "reference_exception",
                       "no_entry_point"]


def test_answers_are_bounded_before_parsing():
    huge = "[" * 5000 + "]" * 5000
    assert predicted_value(huge) == (False, None)
    assert predicted_value("7" * (MAX_ANSWER_BYTES * 3)) == (True, int("7" * MAX_ANSWER_BYTES))  # cut, then parsed
    assert call_arguments("(" * 3000, "f") is None
    assert call_arguments("1, 'a') == 3", "f") == (1, "a")
    assert call_arguments("x=1)", "f") is None  # keywords are not literal positional arguments


@pytest.mark.parametrize("family", ["cr_deduction", "cr_abduction", "cr_induction"])
def test_cold_start_families_validate_and_their_references_solve(pool, family):
    drafts = [draft_task(family, 0.3, 0, i, 3, 5) for i in range(4)]
    outcomes = validate_drafts(drafts, pool, CFG)
    accepted = [o.task for o in outcomes if o.accepted]
    assert accepted, [o.reasons for o in outcomes]
    kind = KINDS.get("code_reasoning")
    for task in accepted:
        query = task.test_cases[0]
        if family == "cr_deduction":
            answer = repr(query.expected)
        elif family == "cr_abduction":
            answer = ", ".join(repr(a) for a in query.args) + ")"
        else:
            answer = task.reference_solution.split("def ", 1)[1] + "\n```"
            answer = "def " + answer
        result = kind.execute(pool, [(task, kind.extract(task, answer, prefilled=family != "cr_induction"))])[0]
        assert result.passed, (family, task.task_id, result)


def test_a_one_input_induction_proposal_is_refused_and_an_accepted_one_reads_back(pool):
    """A proposal with one call left no shown pair once half the inputs stay hidden; it was accepted, stored, and
    the run crashed when the replay read it back ("field 'test_cases' = [] is empty")."""
    from spade.selfplay.proposal import draft_of, parse_proposal
    from spade.taskio import task_from_dict, task_to_dict

    one = parse_proposal("lst):\n    return [x for x in lst if x > 2]\n\nprint(f([1, 2, 3, 4]))\n```")
    two = parse_proposal("lst):\n    return [x for x in lst if x > 2]\n\nprint(f([1, 2, 3, 4]))\nprint(f([5, 0]))\n```")
    drafts = [draft_of(p, "induction", 0.3, iteration=0, index=k, checkpoint=None, model="m")
              for k, p in enumerate((one, two))]
    refused, accepted = validate_drafts(drafts, pool, CFG)
    assert not refused.accepted and refused.reasons == ("too_few_inputs",)
    assert accepted.accepted and accepted.task.test_cases and accepted.task.hidden_test_cases
    assert task_from_dict(task_to_dict(accepted.task), "store") == accepted.task


@pytest.mark.parametrize("mode", ["deduction", "abduction", "induction"])
def test_a_proposal_keeps_the_inputs_its_program_returns_on(pool, mode):
    """`print(f(5))` beside list calls for f(xs): the program raised on one input and the whole proposal was
    refused (reference_exception / reference_raises); judging now leaves that input out and validates the rest
    in full. A program that raises on every input is still refused."""
    from spade.kinds.code_reasoning.prompt import mode_of
    from spade.kinds.code_reasoning.proposer_role import proposer_task
    from spade.selfplay.judging import judge, judged

    prompt = proposer_task("proposer-0-0", 0.3, [], mode)
    good = judged("p0", prompt, "xs):\n    return sum(xs) * 2\n\nprint(f(5))\nprint(f([1, 2]))\nprint(f([3]))\n"
                                "print(f([4, 5, 6]))\nprint(f([]))\n```", True)
    bad = judged("p1", prompt, "xs):\n    return sum(xs) * 2\n\nprint(f(5))\nprint(f('a'))\n```", True)
    rejections = judge([good, bad], pool, CFG, iteration=0, checkpoint=None, model="m")
    assert good.valid and good.reason == "ok" and good.task is not None and mode_of(good.task) == mode
    args = [list(c.args) for c in good.task.all_tests]
    assert [5] not in args and [[1, 2]] in args
    assert not bad.valid and bad.reason in ("reference_exception", "reference_raises")
    assert [r.reason for r in rejections] == [bad.reason]


def test_a_proposal_that_copies_its_shown_example_is_valid_but_not_admitted(pool):
    """The 135M proposer mostly copied the one example its prompt showed (renamed, new constants); such a copy
    validates like any task but is a duplicate of what the prompt showed, while a function of another shape is
    admitted. Fails where only recent proposals and stored tasks are checked (the example was neither)."""
    from spade.dedup import DedupIndex
    from spade.kinds.code_reasoning.proposer_role import proposer_task
    from spade.selfplay.judging import admit, judge, judged

    shown = ("def f(xs):\n    total = 0\n    for x in xs:\n        if x % 2 == 0:\n            total += x\n"
             "    return total\n\nprint(f([1, 2, 3, 4]))\nprint(f([5, 6]))\n")
    prompt = proposer_task("proposer-0-0", 0.3, [shown], "deduction")
    assert prompt.params["examples"] == [shown]
    copy = judged("p0", prompt, "nums):\n    s = 0\n    for n in nums:\n        if n % 3 == 0:\n            s += n\n"
                               "    return s\n\nprint(f([3, 4, 9]))\nprint(f([7]))\n```", True)
    new = judged("p1", prompt, "s):\n    return s.upper() + s[::-1]\n\nprint(f('ab'))\nprint(f('xyz'))\n```", True)
    judge([copy, new], pool, CFG, iteration=0, checkpoint=None, model="m")
    assert copy.valid and new.valid
    rejections = admit([copy, new], DedupIndex(CFG.dedup_threshold), DedupIndex(CFG.dedup_threshold))
    assert copy.reason == "duplicate_example" and not copy.admitted and copy.similarity >= CFG.dedup_threshold
    assert new.admitted and new.reason == "ok"
    assert [r.reason for r in rejections] == ["duplicate_example"]


def test_admitted_proposals_past_the_slots_are_surplus_unplayed_and_unrewarded(pool):
    """selfplay.overflow false: the first `slots` admitted proposals stay the iteration's tasks, the rest are
    recorded valid but surplus (no task, no reward), so the proposer's share bounds the proposals played."""
    from spade.config import SelfplayConfig
    from spade.dedup import DedupIndex
    from spade.kinds.code_reasoning.proposer_role import proposer_task
    from spade.selfplay.judging import admit, bound_admitted, judge, judged

    prompt = proposer_task("proposer-0-0", 0.3, [], "induction")
    bodies = ["s):\n    return s.upper() + s[::-1]\n\nprint(f('ab'))\nprint(f('xyz'))\n```",
              "n):\n    return [i * i for i in range(n)]\n\nprint(f(3))\nprint(f(5))\n```",
              "xs):\n    return max(xs) - min(xs)\n\nprint(f([1, 9, 4]))\nprint(f([2, 2]))\n```"]
    entries = [judged(f"p{k}", prompt, body, True) for k, body in enumerate(bodies)]
    judge(entries, pool, CFG, iteration=0, checkpoint=None, model="m")
    admit(entries, DedupIndex(CFG.dedup_threshold), DedupIndex(CFG.dedup_threshold))
    assert all(e.admitted for e in entries)
    assert bound_admitted(entries, 2) == 1
    assert [e.admitted for e in entries] == [True, True, False]
    extra = entries[2]
    assert extra.valid and extra.surplus and extra.reason == "surplus" and extra.task_id is None
    record = extra.record(0, None, "m", SelfplayConfig(), None)
    assert record.valid and record.task_id is None and record.reward == 0.0
    assert bound_admitted(entries, 5) == 0 and [e.admitted for e in entries] == [True, True, False]


def _deep(levels: int, inner: object = 3) -> object:
    value = inner
    for _ in range(levels):
        value = [value]
    return value


# 64: spade.untrusted.MAX_VALUE_DEPTH, the sandbox codec's depth (spelled out so that the test runs on any tree).
COUNT = "def f(x):\n    return str(x).count('[')\n"


def test_an_answer_nested_past_the_codecs_depth_is_a_wrong_answer_not_an_exception(pool):
    task = task_of(pool, draft("abduction", COUNT, inputs=(([[3]],), ([1],), ([],), ([[[1]]],))))
    assert task.test_cases[0].expected == 2
    too_deep = f"{_deep(65)!r}) == 3"  # the repro: 146 bytes after `assert f(`
    right, deepest, over = judge(pool, task, "[[1]]) == 2", f"{_deep(64)!r})", too_deep)
    assert right.passed and not deepest.passed and deepest.status is ExecStatus.FAILED
    assert not over.passed and over.status is ExecStatus.FAILED


def test_a_draft_whose_input_the_codec_refuses_is_rejected_not_raised(pool):
    for mode in ("deduction", "abduction"):
        inputs = ((_deep(65),), ([1],), ([],), ([[2]],))
        outcome = validate_drafts([draft(mode, COUNT, inputs=inputs)], pool, CFG)[0]
        assert not outcome.accepted and "nested more than 64 levels" in outcome.details[0], outcome.details
    python = TaskDraft("t-py-deep", "Count brackets.", "def f(x)", "f", 0.2, (), ((_deep(65),),),
                       (([1],),), COUNT)
    assert not validate_drafts([python], pool, CFG)[0].accepted


SET_PROGRAM = "def f(words):\n    return {w.upper() for w in words if w}\n"


def test_a_program_returning_a_set_is_admitted_and_a_set_answer_compares_as_a_set(pool):
    inputs = ((["spam", "eggs", "ham"],), (["a", "", "b"],), (["x"],))
    deduction = task_of(pool, draft("deduction", SET_PROGRAM, inputs=inputs))  # not refused as nondeterministic
    right, reordered, as_list, wrong = judge(pool, deduction, "{'SPAM', 'EGGS', 'HAM'}", "{'HAM', 'SPAM', 'EGGS'}",
                                             "['EGGS', 'HAM', 'SPAM']", "{'SPAM'}")
    assert right.passed and reordered.passed and not wrong.passed
    abduction = task_of(pool, draft("abduction", SET_PROGRAM, inputs=inputs))
    other_order, = judge(pool, abduction, "['ham', 'eggs', 'spam', 'ham'])")
    assert other_order.passed


TYPED = "def f(x):\n    return type(x).__name__ + str(len(x))\n"


def test_abduction_arguments_reach_f_with_their_python_types(pool):
    task = task_of(pool, draft("abduction", TYPED, inputs=(((1, 2),), ([1],), ({3},))))
    assert task.test_cases[0].expected == "tuple2"
    as_tuple, as_list, as_set = judge(pool, task, "(7, 8)) == 'tuple2'", "[7, 8])", "{7, 8})")
    assert as_tuple.passed and not as_list.passed and not as_set.passed


COIN = ("import random\n\ndef f(x):\n    if x in (1, 2, 3):\n        return x * 2\n"
        "    return random.SystemRandom().choice([0, 2])\n")
HASHED = "def f(x):\n    if x in (1, 2, 3):\n        return x * 2\n    return 2 * (hash(str(x)) % 2)\n"


def test_an_f_that_disagrees_with_itself_on_the_solvers_input_is_the_tasks_fault(pool):
    for program in (COIN, HASHED):
        task = task_of(pool, draft("abduction", program, inputs=((1,), (2,), (3,))))
        assert task.test_cases[0].expected == 2
        answers = [f"{n}) == 2" for n in range(10, 40)]
        results = judge(pool, task, *answers)
        flagged = [r for r in results if "task_nondeterministic" in r.events]
        assert flagged and not any(r.passed for r in flagged)  # 30 answers: some runs disagree (odds 2^-30 not)


def test_an_abduction_task_rebuilt_from_its_ground_truth_judges_a_right_answer(pool):
    from spade.groundtruth import ground_truth, task_from_ground_truth

    task = task_of(pool, draft("abduction"))
    rebuilt = task_from_ground_truth(ground_truth(task))
    right, wrong = judge(pool, rebuilt, "[3, 1, 2], 2) == [2, 4, 6]", "[1], 2)")
    assert right.passed and not wrong.passed
    deduction = task_of(pool, draft("deduction"))
    assert "reference_solution" not in ground_truth(deduction)  # its program's output is the answer: not needed


def test_the_loops_grader_scores_an_answer_past_the_codecs_depth_as_a_failure(pool):
    from spade.config import RewardConfig
    from spade.records import Candidate
    from spade.rollout import Grader

    task = task_of(pool, draft("abduction", COUNT, inputs=(([[3]],), ([1],), ([],), ([[[1]]],))))
    texts = [f"{_deep(65)!r}) == 3", "[[1]]) == 2"]
    cands = [Candidate(f"{task.task_id}:0:{k}", task.task_id, t, t, "m", "h", 0, 10) for k, t in enumerate(texts)]
    deep, right = Grader(pool, RewardConfig()).grade_candidates([task, task], cands)
    assert not deep.result.passed and right.result.passed and right.reward.total > deep.reward.total


def test_a_program_that_floods_its_output_is_rejected(pool):
    flood = "def f(x):\n    print('y' * 1_000_000)\n    return x + 1\n"
    outcome = validate_drafts([draft("deduction", flood, inputs=((1,), (2,), (3,)))], pool, CFG)[0]
    assert not outcome.accepted and outcome.reasons == ("output_flood",), outcome
