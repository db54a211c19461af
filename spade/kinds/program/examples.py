"""The worked example a program prompt shows before the task: a tiny problem of its own, its sample input and
output, and a complete program that reads stdin with `input()` and prints only the answer.

Why: the embedded 135M model, shown only a statement, wrote functions it then called on made-up values, or read
the input with a prompt string (`input("Enter N: ")`, whose text lands in stdout and fails the test); 0 of 40
samples passed at difficulty 0. One example of the whole shape (read, compute, print, nothing else) is what it copies.

In: nothing. Out: `WORKED_EXAMPLE`. Its problem (the product of two integers) is none of the program families'
problems, so copying it never passes a task; tests/kinds/program checks that on drafted tasks.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class WorkedExample:
    """A problem statement, one sample input and output, and the program that solves it."""

    statement: str
    stdin: str
    stdout: str
    program: str


WORKED_EXAMPLE = WorkedExample(
    statement="The input is one line holding two integers A and B separated by a space. Print their product.",
    stdin="6 7\n",
    stdout="42\n",
    program="a, b = input().split()\nprint(int(a) * int(b))\n",
)
