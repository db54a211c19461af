"""Read records of names and scores and report on them: the best, those over a threshold, a ranking, the top K,
and per-team totals with each team's best member. At difficulty 0 the input is a single record on one line and the
task is one step (print its fields swapped, or its score raised by a bonus), which the embedded 135M model can
write."""

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

NAMES = ("ada", "ben", "cy", "dana", "eli", "fay", "gus", "hana", "ivo", "jo", "kai", "lea", "max", "nia", "oz",
         "pia", "quin", "ravi", "sol", "tess", "uma", "vic", "wes", "xia")
TEAMS = ("red", "blue", "green", "gold")
_READ = ("import sys\n\nrows = sys.stdin.read().splitlines()\n{head}\n"
         "records = [row.split() for row in rows[1:1 + n]]\n")

OPS = {
    "best": ("Print the name with the highest score (the first such record in the input if several are tied).",
             "best = records[0]\nfor rec in records:\n    if int(rec[1]) > int(best[1]):\n        best = rec\n"
             "print(best[0])\n"),
    "above": ("Print, in input order, the names whose score is at least {threshold}, one per line, or NONE if there "
              "are none.",
              "chosen = [rec[0] for rec in records if int(rec[1]) >= {threshold}]\n"
              "print('\\n'.join(chosen) if chosen else 'NONE')\n"),
    "ranking": ("Print all the names, one per line, by score from highest to lowest; names with equal scores in "
                "alphabetical order.",
                "for rec in sorted(records, key=lambda rec: (-int(rec[1]), rec[0])):\n    print(rec[0])\n"),
    "top_k": ("Print the K best records as 'name score', one per line, by score from highest to lowest and names "
              "with equal scores in alphabetical order (all of them if there are fewer than K).",
              "for rec in sorted(records, key=lambda rec: (-int(rec[1]), rec[0]))[:k]:\n    print(rec[0], rec[1])\n"),
    "teams": ("For every team, in alphabetical order, print 'team total best': the team's name, the sum of its "
              "members' scores and its member with the highest score (alphabetically smallest if tied).",
              "teams = {}\nfor name, team, score in records:\n    teams.setdefault(team, []).append((int(score), name))\n"
              "for team in sorted(teams):\n    members = teams[team]\n"
              "    best = min(members, key=lambda m: (-m[0], m[1]))\n"
              "    print(team, sum(s for s, _ in members), best[1])\n"),
}
# One record on one line, no count: the one-step tier at difficulty 0.
SINGLE_OPS = {
    "swap": ("Print the score, then the name, separated by a space.",
             "name, score = sys.stdin.read().split()\nprint(score, name)\n"),
    "bonus": ("Print the name and the score plus {bonus}, separated by a space.",
              "name, score = sys.stdin.read().split()\nprint(name, int(score) + {bonus})\n"),
}
LEVELS = ((0.0, "swap"), (0.0, "bonus"), (0.1, "best"), (0.2, "above"), (0.45, "ranking"), (0.65, "top_k"), (0.8, "teams"))


class Records(ProgramFamily):
    name = "program_records"
    tags = ("program", "sorting", "parsing")

    def variant(self, difficulty: float, rng: random.Random) -> Variant:
        op = pick_level(LEVELS, difficulty, rng)
        score_max = 100 if difficulty < 0.5 else 12  # narrow scores make ties, which the orderings must break
        knobs = {"op": op, "n_max": span(difficulty, 3, 12), "score_max": score_max,
                 "threshold": rng.randint(score_max // 3, 2 * score_max // 3)}
        if op in SINGLE_OPS:
            knobs["bonus"] = rng.randint(2, 20)
            knobs["starter"] = starter(difficulty, "name, score = input().split()\nscore = int(score)")
            text, body = (part.replace("{bonus}", str(knobs["bonus"])) for part in SINGLE_OPS[op])
            fmt = ("The input is one line holding a record 'name score': a lower-case word and an integer, separated "
                   "by a space.")
            return Variant(f"{fmt} {text}", SIGNATURE, "", "import sys\n\n" + body, knobs)
        text, body = (part.replace("{threshold}", str(knobs["threshold"])) for part in OPS[op])
        head = "n, k = map(int, rows[0].split())" if op == "top_k" else "n = int(rows[0])"
        first = ("two integers N and K (1 <= N <= {n}, 1 <= K <= {n})" if op == "top_k"
                 else "an integer N (1 <= N <= {n})").format(n=knobs["n_max"])
        record = "'name team score'" if op == "teams" else "'name score'"
        fmt = (f"The first line of the input holds {first}; each of the next N lines holds a record {record}, "
               "separated by spaces (names are distinct lower-case words, scores are integers).")
        return Variant(f"{fmt} {text}", SIGNATURE, "", _READ.format(head=head) + body, knobs)

    def random_input(self, knobs: Mapping[str, Any], rng: random.Random) -> list[Any]:
        n = rng.randint(1, knobs["n_max"])
        return [render(knobs, [(name, rng.choice(TEAMS), rng.randint(0, knobs["score_max"]))
                               for name in rng.sample(NAMES, n)], rng.randint(1, knobs["n_max"]))]

    def edge_inputs(self, knobs: Mapping[str, Any]) -> list[list[Any]]:
        top, t = knobs["score_max"], knobs["threshold"]
        shapes = [[("ada", "red", 0)], [("cy", "red", top), ("ben", "red", top)],
                  [("eli", "blue", t - 1), ("dana", "red", t), ("fay", "blue", t + 1)],
                  [("gus", "gold", 3), ("ada", "gold", 3), ("ben", "red", 1)]]
        return [[render(knobs, recs, k)] for recs, k in zip(shapes, (1, 1, 2, 5))]


def render(knobs: Mapping[str, Any], recs: list[tuple[str, str, int]], k: int) -> str:
    if knobs["op"] in SINGLE_OPS:
        name, _, score = recs[0]
        return lines(f"{name} {score}")
    head = f"{len(recs)} {k}" if knobs["op"] == "top_k" else str(len(recs))
    if knobs["op"] == "teams":
        return lines(head, *(f"{name} {team} {score}" for name, team, score in recs))
    return lines(head, *(f"{name} {score}" for name, _, score in recs))


FAMILY = register(Records())
