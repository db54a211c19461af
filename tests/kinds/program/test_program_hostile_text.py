"""A program answer of degenerate lines (a 2 KB run of `x=(`, 20,000 of them, a 6 MB program) is a verdict within
2 s of host CPU on the one grading path; a correct program graded after it still scores 1.0."""

from __future__ import annotations

import time

import pytest

from spade.config import RewardConfig
from spade.records import Completion
from spade.rollout import Grader
from tests.kinds.program.helpers import SUM_MAX, program_task

HOSTILE = ["```python\n" + "x=(\n" * 500 + "```", "x=(\n" * 20_000, "@x\n" * 20_000,
           "```python\nimport sys\n" + "x = 1\n" * 1_000_000 + "```"]


@pytest.mark.parametrize("index", range(len(HOSTILE)))
def test_a_degenerate_program_answer_is_a_verdict_in_bounded_host_time(pool, index: int) -> None:
    grader, task = Grader(pool, RewardConfig()), program_task()
    for prefilled in (True, False):
        started = time.process_time()
        [rollout] = grader.grade([task], [Completion(HOSTILE[index])], ids=["hostile"], prefilled=prefilled)
        assert time.process_time() - started < 2.0
        assert not rollout.result.passed
    [right] = grader.grade([task], [Completion(f"```python\n{SUM_MAX}```")], ids=["right"], prefilled=False)
    assert right.result.passed and right.result.score == 1.0
