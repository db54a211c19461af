"""STaR's rationalisation: unsolved tasks are sampled with their reference as a hint, and only hinted answers that
pass every test (hidden ones too) reach the RFT buffer, paired with the plain prompt."""

from dataclasses import replace

import pytest

from spade.config import ExecutorConfig, RewardConfig, TrainingConfig
from spade.records import Completion, Task, TestCase
from spade.rollout import Grader
from spade.train.buffer import Sample, rft_buffer
from spade.train.rationalize import HINT, hinted, rationalize, reference_answers, unsolved

ZORB = Task("zorb", "Return the zorblax number of n.", "def zorb(n: int) -> int:", "zorb", 0.4,
            test_cases=(TestCase((1,), 10), TestCase((2,), 17)), hidden_test_cases=(TestCase((5,), 38),),
            reference_solution="def zorb(n: int) -> int:\n    return n * 7 + 3\n")
PLAIN = "def zorb(n):\n    return n * 7 + 3\n"
HARD_CODED = "def zorb(n):\n    return {1: 10, 2: 17}[n]\n"  # the public tests only: fails the hidden one
WRONG = "def zorb(n):\n    return n\n"


class _StubStore:
    """Only what rft_buffer reads: the run's earlier rollouts (none here)."""

    def rollouts(self, limit):
        return []


@pytest.fixture(scope="module")
def pool():
    from spade.sandbox import SandboxPool

    with SandboxPool(ExecutorConfig(workers=2)) as p:
        yield p


def test_only_tasks_with_rollouts_none_of_which_passed_are_unsolved(pool):
    other = replace(ZORB, task_id="other")
    no_reference = replace(ZORB, task_id="noref", reference_solution=None)
    rollouts = Grader(pool, RewardConfig()).grade(
        [ZORB, ZORB, other, no_reference], [Completion(WRONG + "```"), Completion(WRONG + "```"),
                                            Completion(PLAIN + "```"), Completion(WRONG + "```")],
        ids=["a", "b", "c", "d"])
    assert [r.passed for r in rollouts] == [False, False, True, False]
    assert unsolved([ZORB, other, no_reference, replace(ZORB, task_id="untried")], rollouts) == [ZORB]


def test_the_hint_shows_the_reference_only_in_the_description():
    shown = hinted(ZORB)
    assert shown.description.startswith(ZORB.description) and ZORB.reference_solution.strip() in shown.description
    assert HINT.split("{")[0].strip() in shown.description
    assert replace(shown, description=ZORB.description) == ZORB


def test_rationales_join_the_buffer_outside_the_learning_zone_and_are_counted():
    rationale = Sample("zorb", "```python\n" + PLAIN + "```", PLAIN, True)
    training = TrainingConfig(learning_zone=True, max_examples=8)
    chosen, stats = rft_buffer([], _StubStore(), training, 0.3, rationales=[rationale, rationale])
    assert chosen == [rationale]  # a task with pass rate 0 is outside the zone, but a rationale still counts
    assert stats["rationalized"] == 2
    assert rft_buffer([], _StubStore(), training, 0.3)[0] == []


def test_references_answer_only_unsolved_tasks_in_the_form_the_policy_writes(pool):
    """training.references: the reference of each task no rollout solved, as a completion after the prompt's
    opening fence; graded like a sampled answer it passes, and its extracted code is the reference."""
    grader = Grader(pool, RewardConfig())
    other = replace(ZORB, task_id="other")
    rollouts = grader.grade([ZORB, other], [Completion(WRONG + "```"), Completion(PLAIN + "```")], ids=["a", "b"])
    answers = reference_answers([ZORB, other], rollouts)
    assert [(s.task_id, s.passed, s.code) for s in answers] == [("zorb", True, ZORB.reference_solution)]
    again = grader.grade([ZORB], [Completion(answers[0].completion)], ids=["ref"])[0]
    assert again.passed and again.candidate.code.strip() == ZORB.reference_solution.strip()
    assert reference_answers([other], rollouts) == ()
    # training.references: all: every task sampled this iteration, solved or not, each once; unsampled ones never
    every = reference_answers([ZORB, other, ZORB, replace(ZORB, task_id="unsampled")], rollouts, every=True)
    assert [(s.task_id, s.code) for s in every] == [("zorb", ZORB.reference_solution), ("other", other.reference_solution)]


class _Echo:
    """A policy that answers with whatever the prompt's hint shows, else a wrong body: stands in for the sampler
    only in this test of the wiring; the real model's copying is measured by bench/efficacy.py's arms."""

    def __init__(self, answer_without_hint: str):
        self.answer_without_hint = answer_without_hint
        self.seen: list[Task] = []

    def sample(self, tasks, n, *, temperature=None, seed=0):
        self.seen.extend(tasks)
        out = []
        for t in tasks:
            code = t.reference_solution if "hint" in t.description else self.answer_without_hint
            out.append([Completion(code + "```"), Completion(HARD_CODED + "```")][:n])
        return out


def test_hinted_answers_are_graded_on_every_test_and_only_passing_ones_are_kept(pool):
    grader = Grader(pool, RewardConfig())
    failed = grader.grade([ZORB], [Completion(WRONG + "```")], ids=["x"])
    policy = _Echo(WRONG)
    found = rationalize(policy, grader, [ZORB], failed, n=2, temperature=0.8, seed=0)
    assert [t.task_id for t in policy.seen] == ["zorb"] and "return n * 7 + 3" in policy.seen[0].description
    assert (found.hinted, found.solved) == (1, 1)
    assert ["return n * 7 + 3" in s.code for s in found.samples] == [True]  # the hard-coded one fails a hidden test
    assert all(s.passed and s.task_id == "zorb" for s in found.samples)
    assert rationalize(policy, grader, [ZORB], grader.grade([ZORB], [Completion(PLAIN + "```")], ids=["y"]), n=2, temperature=0.8, seed=0).hinted == 0


@pytest.mark.slow
def test_the_embedded_model_copies_a_hint_into_a_passing_answer(pool):
    """The real SmolLM2 sampler: with the hint, some of a few samples pass a task it cannot guess."""
    from spade.config import SamplingConfig
    from spade.policy.embedded import EmbeddedPolicy

    policy = EmbeddedPolicy(SamplingConfig(max_new_tokens=48, threads=1), TrainingConfig())
    grader = Grader(pool, RewardConfig())
    plain = policy.sample([ZORB], 4, temperature=0.8, seed=0)[0]
    rollouts = grader.grade([ZORB] * 4, plain, ids=[f"p{k}" for k in range(4)])
    assert not any(r.passed for r in rollouts)
    found = rationalize(policy, grader, [ZORB], rollouts, n=4, temperature=0.8, seed=0)
    assert found.solved == 1 and found.samples


def test_training_targets_of_other_kinds_are_the_completion_as_sampled():
    """The Python extractor would cut a program or an answer line; other kinds train on what was sampled."""
    from spade.policy.embedded import EmbeddedPolicy

    policy = EmbeddedPolicy()  # the model is not loaded for this
    program = replace(ZORB, kind="program", entry_point="")
    text = "import sys\nprint(sum(map(int, sys.stdin.read().split())))\n```"
    assert policy.training_target(program, text) == text
    assert policy.training_target(ZORB, PLAIN + "```\nprose").endswith("return n * 7 + 3\n```")
