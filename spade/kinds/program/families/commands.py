"""Simulate a little machine driven by commands, one per line, printing what the query commands ask: a counter, a
stack, a queue, a key-value store. At difficulty 0 the input is a single command on one line, the same one in
every test ('add X Y', or 'sub X Y', print the result): one step, which the embedded 135M model can write; from
0.05 either command may come."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from spade.generate.family import Variant
from spade.generate.menu import span
from spade.generate.registry import register
from spade.kinds.program.families.base import (
    SIGNATURE,
    ProgramFamily,
    lines,
    pick_level,
    starter,
)

KEYS = ("a", "b", "c", "x", "y", "z")

MACHINES = {
    "counter": ("A counter starts at 0. 'add X' adds X to it, 'sub X' subtracts X, and 'print' prints its value.",
                "value = 0\nfor cmd in commands:\n    if cmd[0] == 'add':\n        value += int(cmd[1])\n"
                "    elif cmd[0] == 'sub':\n        value -= int(cmd[1])\n    elif cmd[0] == 'print':\n"
                "        print(value)\n"),
    "stack": ("A stack starts empty. 'push X' puts X on top, 'pop' removes the top value (nothing happens when the "
              "stack is empty), 'top' prints the top value (or EMPTY when the stack is empty) and 'size' prints how "
              "many values it holds.",
              "stack = []\nfor cmd in commands:\n    if cmd[0] == 'push':\n        stack.append(cmd[1])\n"
              "    elif cmd[0] == 'pop':\n        if stack:\n            stack.pop()\n    elif cmd[0] == 'top':\n"
              "        print(stack[-1] if stack else 'EMPTY')\n    elif cmd[0] == 'size':\n        print(len(stack))\n"),
    "queue": ("A queue starts empty. 'enqueue X' adds X at the back, 'dequeue' removes the value at the front and "
              "prints it (or prints EMPTY when the queue is empty), and 'size' prints how many values it holds.",
              "from collections import deque\n\nqueue = deque()\nfor cmd in commands:\n    if cmd[0] == 'enqueue':\n"
              "        queue.append(cmd[1])\n    elif cmd[0] == 'dequeue':\n"
              "        print(queue.popleft() if queue else 'EMPTY')\n    elif cmd[0] == 'size':\n"
              "        print(len(queue))\n"),
    "store": ("A key-value store starts empty. 'set K V' stores the integer V under key K (replacing any value), "
              "'get K' prints the value of K (or NULL when K is not stored), 'incr K' adds 1 to the value of K (a "
              "missing key counts as 0), 'del K' removes K if present, and 'count' prints how many keys are stored.",
              "store = {}\nfor cmd in commands:\n    if cmd[0] == 'set':\n        store[cmd[1]] = int(cmd[2])\n"
              "    elif cmd[0] == 'get':\n        print(store.get(cmd[1], 'NULL'))\n    elif cmd[0] == 'incr':\n"
              "        store[cmd[1]] = store.get(cmd[1], 0) + 1\n    elif cmd[0] == 'del':\n"
              "        store.pop(cmd[1], None)\n    elif cmd[0] == 'count':\n        print(len(store))\n"),
}
# One command on one line, no count: the one-step tiers. At difficulty 0 every input holds the same command ('add'
# or 'sub', fixed per task), so the program is one expression; from 0.05 the command varies and needs a branch. (With
# either command at difficulty 0, the public samples often showed only one of them and the 135M model printed X + Y.)
CALC = ("The input is one line holding one command: 'add X Y' or 'sub X Y', where X and Y are integers (0 <= X, Y "
        "<= {v}). For 'add X Y' print X + Y; for 'sub X Y' print X - Y. Print only that one number.",
        "import sys\n\nop, x, y = sys.stdin.read().split()\nprint(int(x) + int(y) if op == 'add' else int(x) - int(y))\n")
ONE_COMMAND = {
    "add": ("The input is one line holding one command 'add X Y', where X and Y are integers (0 <= X, Y <= {v}). "
            "Print X + Y, only that one number.",
            "import sys\n\nop, x, y = sys.stdin.read().split()\nprint(int(x) + int(y))\n"),
    "sub": ("The input is one line holding one command 'sub X Y', where X and Y are integers (0 <= X, Y <= {v}). "
            "Print X - Y, only that one number.",
            "import sys\n\nop, x, y = sys.stdin.read().split()\nprint(int(x) - int(y))\n"),
}
ONE_LINE = {"calc": CALC, **ONE_COMMAND}
LEVELS = ((0.0, "add"), (0.0, "sub"), (0.05, "calc"), (0.1, "counter"), (0.3, "stack"), (0.55, "queue"),
          (0.75, "store"))
QUERIES = {"counter": ("print",), "stack": ("top", "size"), "queue": ("dequeue", "size"), "store": ("get", "count")}


class Commands(ProgramFamily):
    name = "program_commands"
    tags = ("program", "simulation", "parsing")

    def variant(self, difficulty: float, rng: random.Random) -> Variant:
        machine = pick_level(LEVELS, difficulty, rng)
        knobs = {"machine": machine, "q_max": span(difficulty, 4, 20), "value_max": span(difficulty, 9, 99)}
        if machine in ONE_LINE:
            knobs["starter"] = starter(difficulty, "op, x, y = input().split()\nx, y = int(x), int(y)")
            text, reference = ONE_LINE[machine]
            return Variant(text.format(v=knobs["value_max"]), SIGNATURE, "", reference, knobs)
        fmt = (f"The first line of the input holds Q (1 <= Q <= {knobs['q_max']}); each of the next Q lines holds "
               "one command.")
        text, body = MACHINES[machine]
        reference = (f"import sys\n\nrows = sys.stdin.read().splitlines()\nq = int(rows[0])\n"
                     f"commands = [row.split() for row in rows[1:1 + q]]\n{body}")
        return Variant(f"{fmt} {text} Print each answer on its own line.", SIGNATURE, "", reference, knobs)

    def random_input(self, knobs: Mapping[str, Any], rng: random.Random) -> list[Any]:
        if knobs["machine"] in ONE_LINE:
            values = [rng.randint(0, knobs["value_max"]) for _ in range(2)]
            op = rng.choice(("add", "sub")) if knobs["machine"] == "calc" else knobs["machine"]
            return [lines(f"{op} {values[0]} {values[1]}")]
        q = rng.randint(2, knobs["q_max"])
        cmds = [command(knobs["machine"], rng, knobs["value_max"]) for _ in range(q - 1)]
        last = rng.choice(QUERIES[knobs["machine"]])  # at least one line of output
        cmds.append(f"get {rng.choice(KEYS[:3])}" if last == "get" else last)
        return [lines(len(cmds), *cmds)]

    def edge_inputs(self, knobs: Mapping[str, Any]) -> list[list[Any]]:
        if knobs["machine"] == "calc":
            return [[lines(cmd)] for cmd in ("add 0 0", "sub 3 5", "add 7 1", "sub 9 2", "add 4 4", "sub 6 6")]
        if knobs["machine"] in ONE_COMMAND:
            return [[lines(f"{knobs['machine']} {x} {y}")] for x, y in ((0, 0), (3, 5), (7, 1), (4, 4), (0, 6))]
        edges = {
            "counter": [["print"], ["sub 5", "print"], ["add 3", "print", "sub 3", "print"]],
            "stack": [["top"], ["pop", "size"], ["push 1", "push 2", "pop", "top", "size"], ["push 4", "pop", "top"]],
            "queue": [["dequeue"], ["enqueue 1", "enqueue 2", "dequeue", "size"], ["enqueue 3", "dequeue", "dequeue"]],
            "store": [["get a"], ["incr a", "incr a", "get a"], ["set a 5", "del a", "get a", "count"],
                      ["set b 2", "set b 7", "count", "get b"], ["del c", "count"]],
        }[knobs["machine"]]
        return [[lines(len(cmds), *cmds)] for cmds in edges]


def command(machine: str, rng: random.Random, value_max: int) -> str:
    value = rng.randint(1, value_max)
    if machine == "counter":
        return rng.choice([f"add {value}", f"add {value}", f"sub {value}", "print"])
    if machine == "stack":
        return rng.choice([f"push {value}", f"push {value}", "pop", "top", "size"])
    if machine == "queue":
        return rng.choice([f"enqueue {value}", f"enqueue {value}", "dequeue", "size"])
    key = rng.choice(KEYS[: 3 if value_max < 50 else 6])
    return rng.choice([f"set {key} {value}", f"incr {key}", f"get {key}", f"del {key}", "count"])


FAMILY = register(Commands())
