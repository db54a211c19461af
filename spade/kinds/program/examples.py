"""The worked examples a program prompt shows before the task, as earlier exchanges: tiny problems of their own,
a sample input and output each, and complete programs that read stdin with `input()` and print only the answer.

Why: the embedded 135M model, shown only a statement, wrote functions it then called on made-up values, or read
the input with a prompt string (`input("Enter N: ")`, whose text lands in stdout and fails the test); 0 of 40
samples passed at difficulty 0. With one example it copied that example's program (`a, b = line.split()`) into
many answers; examples of different shapes (a list of numbers, two values, counting characters) show how the
input's shape becomes the reading code.

In: a prompt variant. Out: the examples to show (`examples_for`). Their problems (the smallest number, a product,
how often a letter occurs) are none of the program families' problems, so copying one never passes a task;
tests/kinds/program checks that on drafted tasks. Each program starts with one line that reads and parses the
input, as the starters that easy tasks have prefilled do (families/base.py).
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


WORKED_EXAMPLES = (
    WorkedExample(
        statement="The input is one line holding integers separated by spaces. Print the smallest of them.",
        stdin="8 3 5\n",
        stdout="3\n",
        program="nums = [int(x) for x in input().split()]\nprint(min(nums))\n",
    ),
    WorkedExample(
        statement="The input is one line holding two integers A and B separated by a space. Print their product.",
        stdin="6 7\n",
        stdout="42\n",
        program="a, b = input().split()\nprint(int(a) * int(b))\n",
    ),
    WorkedExample(
        statement="The input is one line of lower-case letters. Print how many times the letter 'z' occurs in it.",
        stdin="pizzazz\n",
        stdout="4\n",
        program="line = input()\nprint(line.count('z'))\n",
    ),
)
SHOWN = 2  # examples per prompt: more made the prompt long for little gain


def examples_for(variant: int) -> tuple[WorkedExample, ...]:
    """The examples prompt `variant` shows, in order: SHOWN of them, a different first one per variant."""
    return tuple(WORKED_EXAMPLES[(variant + k) % len(WORKED_EXAMPLES)] for k in range(SHOWN))
