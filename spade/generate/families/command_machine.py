"""Simulation of a little machine driven by a list of text commands: a counter, a stack, a bank account."""

from __future__ import annotations

from spade.generate.menu import MenuFamily, Op, span
from spade.generate.registry import register

CMDS = ("commands", "ops", "program", "actions")


def _size(d, rng):
    return {"size": span(d, 4, 14)}


def _counter(knobs, rng):
    return [[rng.choice(["inc", "dec", "inc", "double"]) for _ in range(rng.randint(1, knobs["size"]))]]


def _stack(knobs, rng):
    out = []
    for _ in range(rng.randint(1, knobs["size"])):
        out.append(f"push {rng.randint(-9, 9)}" if rng.random() < 0.6 else rng.choice(["pop", "add", "dup"]))
    return [out]


def _bank(knobs, rng):
    return [[f"{rng.choice(['deposit', 'withdraw'])} {rng.randint(1, 50)}" for _ in range(rng.randint(1, knobs["size"]))]]


OPS = (
    Op("inc_dec", 0.0, ("run_counter", "count_up_down", "final_count"), (CMDS,), "def $name($a0: list[str]) -> int:",
       ("Return the final value of a counter that starts at 0, where each 'inc' in $a0 adds 1 and each 'dec' subtracts 1.",),
       "    value = 0\n    for c in $a0:\n        if c == 'inc':\n            value += 1\n        elif c == 'dec':\n            value -= 1\n    return value",
       lambda k, r: [[r.choice(["inc", "dec", "inc"]) for _ in range(r.randint(1, k["size"]))]], _size,
       lambda k: [[[]], [["inc"]], [["dec"]], [["dec", "dec", "inc"]]]),
    Op("counter", 0.3, ("run_machine", "counter_program", "final_value"), (CMDS,), "def $name($a0: list[str]) -> int:",
       ("Start a counter at 0. For each command in $a0, 'inc' adds 1, 'dec' subtracts 1 and 'double' multiplies by 2. "
        "Return the final value.",),
       "    value = 0\n    for c in $a0:\n        if c == 'inc':\n            value += 1\n        elif c == 'dec':\n            value -= 1\n"
       "        elif c == 'double':\n            value *= 2\n    return value",
       _counter, _size, lambda k: [[[]], [["inc"]], [["dec", "double"]], [["inc", "double", "double"]]]),
    Op("bank", 0.4, ("bank_balance", "apply_transactions", "final_balance"), (CMDS,), "def $name($a0: list[str]) -> int:",
       ("Start with a balance of $start. Each command in $a0 is 'deposit N' or 'withdraw N'. A withdrawal larger than "
        "the balance is refused (skipped). Return the final balance.",),
       "    balance = $start\n    for c in $a0:\n        kind, amount = c.split()\n        amount = int(amount)\n        if kind == 'deposit':\n"
       "            balance += amount\n        elif amount <= balance:\n            balance -= amount\n    return balance",
       _bank, lambda d, r: {"size": span(d, 4, 14), "start": r.choice([0, 10, 20, 50])},
       lambda k: [[[]], [["withdraw 1"]], [[f"withdraw {k['start']}"]], [["deposit 5", "withdraw 5"]]]),
    Op("stack", 0.7, ("run_stack", "stack_machine", "evaluate_stack"), (CMDS,), "def $name($a0: list[str]) -> list[int]:",
       ("Run the stack commands in $a0 on an empty stack: 'push N' pushes N, 'pop' removes the top, 'add' replaces the "
        "top two values by their sum, 'dup' pushes a copy of the top. A command that needs more values than the stack "
        "holds is ignored. Return the stack, bottom first.",),
       "    stack = []\n    for c in $a0:\n        parts = c.split()\n        if parts[0] == 'push':\n            stack.append(int(parts[1]))\n"
       "        elif parts[0] == 'pop' and len(stack) >= 1:\n            stack.pop()\n        elif parts[0] == 'add' and len(stack) >= 2:\n"
       "            stack.append(stack.pop() + stack.pop())\n        elif parts[0] == 'dup' and len(stack) >= 1:\n            stack.append(stack[-1])\n    return stack",
       _stack, _size, lambda k: [[[]], [["pop"]], [["push 1", "add"]], [["push 2", "dup", "add"]], [["dup"]]]),
)

FAMILY = register(MenuFamily("command_machine", ("simulation", "parsing"), OPS))
