"""Program tasks shared by the program kind's tests."""

from __future__ import annotations

from spade.records import Task, TestCase

SUM_MAX = ("import sys\n\ndata = sys.stdin.read().split()\nn = int(data[0])\nnums = [int(x) for x in data[1:1 + n]]\n"
           "print(sum(nums), max(nums))\n")


def program_task(reference: str = SUM_MAX, match: str = "tokens", task_id: str = "prog/sum_max") -> Task:
    """A validated-looking task: N then N integers, print their sum and maximum."""
    cases = [("3\n1 2 3\n", "6 3\n"), ("1\n-5\n", "-5 -5\n"), ("4\n2 9 -1 9\n", "19 9\n"), ("2\n0 0\n", "0 0\n")]
    tests = tuple(TestCase((stdin,), out) for stdin, out in cases)
    return Task(task_id, "Read N and N integers; print their sum and maximum.", "program: stdin -> stdout", "", 0.3,
                tags=("program",), test_cases=tests[:1], hidden_test_cases=tests[1:], reference_solution=reference,
                params={"output_match": match}, kind="program", reference_cpu_s=0.002)
