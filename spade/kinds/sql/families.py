"""SQL families: single-table filters, grouping, joins, subqueries and window functions, over dbgen's domains.

Difficulty picks the level of the question (three per family: more conditions, HAVING, three tables and outer
joins, correlated subqueries, partitions and running totals) and the size of the databases; the domain and the
constants come from the draw. Each test's argument is a fresh random database of the same schema; edge tests are
a tiny one and one without events. `params.ordered` says whether the question asks for an order.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from spade.generate.family import Family, Variant
from spade.generate.registry import register
from spade.kinds.sql.dbgen import DOMAINS, Domain, database

SIGNATURE = "SQLite SELECT statement"
ENTRY_POINT = "query"
_CMP = {">": "greater than", ">=": "at least", "<": "less than", "<=": "at most"}


def _num(x: float) -> str:
    return f"{x:g}"


def _a(word: str) -> str:
    return f"an {word}" if word[0] in "aeiou" else f"a {word}"


def middle_real(d: Domain, rng: random.Random) -> float:
    """A threshold in the middle of the domain's range (so filters keep some rows and drop some)."""
    lo, hi = d.real_range
    return float(round(round((lo + (hi - lo) * rng.uniform(0.3, 0.7)) / d.real_step) * d.real_step, 2))


def middle_int(d: Domain, rng: random.Random) -> int:
    lo, hi = d.int_range
    return rng.randint(lo + (hi - lo) * 3 // 10, lo + (hi - lo) * 7 // 10)


class SqlFamily(Family):
    kind = "sql"
    tags: tuple[str, ...] = ("sql",)

    def variant(self, difficulty: float, rng: random.Random) -> Variant:
        level = min(2, int(difficulty * 3))
        domain = rng.choice(sorted(DOMAINS))
        d = DOMAINS[domain]
        knobs: dict[str, Any] = {"domain": domain, "level": level, "rows": 8 + int(difficulty * 14),
                                 "events": 6 + int(difficulty * 20), "group": rng.choice(d.groups),
                                 "real_t": middle_real(d, rng), "int_t": middle_int(d, rng),
                                 "qty_t": rng.randint(3, 9), "k": rng.randint(2, 3), "limit": rng.randint(3, 5),
                                 "op": rng.choice(sorted(_CMP))}
        description, reference, ordered = self.question(level, d, knobs)
        knobs["ordered"] = ordered
        return Variant(description, SIGNATURE, ENTRY_POINT, reference, knobs)

    def question(self, level: int, d: Domain, k: dict[str, Any]) -> tuple[str, str, bool]:
        """(question, reference query, whether the question asks for an order) for a level and the knobs."""
        raise NotImplementedError

    def random_input(self, knobs: Mapping[str, Any], rng: random.Random) -> list[Any]:
        d = DOMAINS[knobs["domain"]]
        return [database(d, rng, rng.randint(knobs["rows"] // 2, knobs["rows"]),
                         rng.randint(knobs["events"] // 2, knobs["events"]), dict(knobs))]

    def edge_inputs(self, knobs: Mapping[str, Any]) -> list[list[Any]]:
        d = DOMAINS[knobs["domain"]]
        rng = random.Random(f"sql-edge|{self.name}|{sorted(knobs.items())}")
        return [[database(d, rng, 2, 1, dict(knobs))], [database(d, rng, 6, 0, dict(knobs))]]


class Filter(SqlFamily):
    name = "sql_filter"
    tags = ("sql", "filter")

    def question(self, level: int, d: Domain, k: dict[str, Any]) -> tuple[str, str, bool]:
        t, g = _num(k["real_t"]), k["group"]
        if level == 0:
            return (f"List the name of every {d.m_one} whose {d.real} is {_CMP[k['op']]} {t}.",
                    f"SELECT name FROM {d.m} WHERE {d.real} {k['op']} {t}", False)
        if level == 1:
            return ((f"List the name and {d.int} of the {d.m} in {d.grp} '{g}' with {d.int} of at least {k['int_t']}, "
                     f"ordered by {d.int} from highest to lowest, then by name."),
                    (f"SELECT name, {d.int} FROM {d.m} WHERE {d.grp} = '{g}' AND {d.int} >= {k['int_t']} "
                     f"ORDER BY {d.int} DESC, name"), True)
        return ((f"Among the {d.m} not in {d.grp} '{g}', list the name and {d.real} of those with no {d.opt} (NULL) "
                 f"or with {d.int} greater than {k['int_t']}. Order by {d.real} from lowest to highest, then by name, "
                 f"and return only the first {k['limit']} rows."),
                (f"SELECT name, {d.real} FROM {d.m} WHERE {d.grp} <> '{g}' AND ({d.opt} IS NULL OR {d.int} > "
                 f"{k['int_t']}) ORDER BY {d.real}, name LIMIT {k['limit']}"), True)


class Aggregate(SqlFamily):
    name = "sql_aggregate"
    tags = ("sql", "aggregate")

    def question(self, level: int, d: Domain, k: dict[str, Any]) -> tuple[str, str, bool]:
        if level == 0:
            return ((f"For each {d.grp}, return the {d.grp} and the number of {d.m} in it with {d.int} "
                     f"{_CMP[k['op']]} {k['int_t']} (leave out a {d.grp} with none)."),
                     f"SELECT {d.grp}, COUNT(*) FROM {d.m} WHERE {d.int} {k['op']} {k['int_t']} GROUP BY {d.grp}",
                    False)
        if level == 1:
            return ((f"For each {d.grp}, return the {d.grp}, the total {d.int} and the highest {d.real} of its {d.m} "
                     f"whose {d.int} is greater than {k['int_t']}; order by {d.grp}."),
                    (f"SELECT {d.grp}, SUM({d.int}), MAX({d.real}) FROM {d.m} WHERE {d.int} > {k['int_t']} "
                     f"GROUP BY {d.grp} ORDER BY {d.grp}"), True)
        return ((f"For each {d.grp} with at least {k['k']} {d.m}, return the {d.grp} and the average {d.real} rounded "
                 f"to 2 decimals; order by that average from highest to lowest, then by {d.grp}."),
                (f"SELECT {d.grp}, ROUND(AVG({d.real}), 2) AS average FROM {d.m} GROUP BY {d.grp} "
                 f"HAVING COUNT(*) >= {k['k']} ORDER BY average DESC, {d.grp}"), True)


class Join(SqlFamily):
    name = "sql_join"
    tags = ("sql", "join")

    def question(self, level: int, d: Domain, k: dict[str, Any]) -> tuple[str, str, bool]:
        if level == 0:
            return ((f"For every {d.c_one} with {d.qty} {_CMP[k['op']]} {k['qty_t']}, return the name of its "
                     f"{d.m_one} ({d.c}.{d.m_id} is {d.m}.id) and the {d.qty}."),
                    (f"SELECT m.name, c.{d.qty} FROM {d.c} AS c JOIN {d.m} AS m ON c.{d.m_id} = m.id "
                     f"WHERE c.{d.qty} {k['op']} {k['qty_t']}"), False)
        if level == 1:
            return ((f"For each {d.p_one} with any {d.c_one} of {_a(d.m_one)} in {d.grp} '{k['group']}', return the "
                     f"{d.p_one}'s name and the total {d.qty} of those {d.c}; order by the total from highest to "
                     f"lowest, then by name."),
                    (f"SELECT p.name, SUM(c.{d.qty}) AS total FROM {d.c} AS c JOIN {d.m} AS m ON c.{d.m_id} = m.id "
                     f"JOIN {d.p} AS p ON c.{d.p_id} = p.id WHERE m.{d.grp} = '{k['group']}' GROUP BY p.id, p.name "
                     f"ORDER BY total DESC, p.name"), True)
        return ((f"For every {d.p_one} (all of them, 0 when none), return the name and the number of its {d.c} whose "
                 f"{d.m_one} has {d.real} greater than {_num(k['real_t'])}; order by that number from highest to "
                 f"lowest, then by name."),
                (f"SELECT p.name, COUNT(m.id) AS n FROM {d.p} AS p LEFT JOIN {d.c} AS c ON c.{d.p_id} = p.id "
                 f"LEFT JOIN {d.m} AS m ON m.id = c.{d.m_id} AND m.{d.real} > {_num(k['real_t'])} "
                 f"GROUP BY p.id, p.name ORDER BY n DESC, p.name"), True)


class Subquery(SqlFamily):
    name = "sql_subquery"
    tags = ("sql", "subquery")

    def question(self, level: int, d: Domain, k: dict[str, Any]) -> tuple[str, str, bool]:
        if level == 0:
            return ((f"List the name of every {d.m_one} whose {d.real} is above the average {d.real} of the {d.m} in "
                     f"{d.grp} '{k['group']}'."),
                    (f"SELECT name FROM {d.m} WHERE {d.real} > (SELECT AVG({d.real}) FROM {d.m} "
                     f"WHERE {d.grp} = '{k['group']}')"), False)
        if level == 1:
            return ((f"List the name of every {d.m_one} that has no {d.c_one} with {d.qty} of at least {k['qty_t']} "
                     f"({d.c}.{d.m_id} is {d.m}.id)."),
                    (f"SELECT name FROM {d.m} WHERE id NOT IN (SELECT {d.m_id} FROM {d.c} "
                     f"WHERE {d.qty} >= {k['qty_t']})"), False)
        return ((f"For each {d.grp}, return the {d.grp}, name and {d.real} of the {d.m} with the highest {d.real} in "
                 f"that {d.grp} among those with {d.int} of at least {k['int_t']} (all of them on a tie); order by "
                 f"{d.grp}, then name."),
                (f"SELECT a.{d.grp}, a.name, a.{d.real} FROM {d.m} AS a WHERE a.{d.int} >= {k['int_t']} AND "
                 f"a.{d.real} = (SELECT MAX(b.{d.real}) FROM {d.m} AS b WHERE b.{d.grp} = a.{d.grp} "
                 f"AND b.{d.int} >= {k['int_t']}) ORDER BY a.{d.grp}, a.name"), True)


class Window(SqlFamily):
    name = "sql_window"
    tags = ("sql", "window")

    def question(self, level: int, d: Domain, k: dict[str, Any]) -> tuple[str, str, bool]:
        if level == 0:
            return ((f"Number the {d.m} with {d.int} of at least {k['int_t']} by {d.real} from highest to lowest "
                     f"(ties broken by name): return the name, the {d.real} and the position (1 for the first), "
                     f"ordered by position."),
                    (f"SELECT name, {d.real}, ROW_NUMBER() OVER (ORDER BY {d.real} DESC, name) AS position "
                     f"FROM {d.m} WHERE {d.int} >= {k['int_t']} ORDER BY position"), True)
        if level == 1:
            return ((f"Within each {d.grp}, rank the {d.m} by {d.int} from highest to lowest, equal values sharing a "
                     f"rank and the next rank skipping (as RANK does); return the {d.grp}, the name and the rank, "
                     f"ordered by {d.grp}, rank, then name."),
                    (f"SELECT {d.grp}, name, RANK() OVER (PARTITION BY {d.grp} ORDER BY {d.int} DESC) AS r "
                     f"FROM {d.m} ORDER BY {d.grp}, r, name"), True)
        return ((f"For every {d.c_one} with {d.qty} greater than {k['qty_t'] // 3}, return its {d.m_id}, its id, its "
                 f"day and the running total of {d.qty} over that {d.m_one}'s {d.c} of this kind up to and including "
                 f"it (taken in order of day, then id); order by {d.m_id}, day, then id."),
                (f"SELECT {d.m_id}, id, day, SUM({d.qty}) OVER (PARTITION BY {d.m_id} ORDER BY day, id) AS running "
                 f"FROM {d.c} WHERE {d.qty} > {k['qty_t'] // 3} ORDER BY {d.m_id}, day, id"), True)


for _family in (Filter(), Aggregate(), Join(), Subquery(), Window()):
    register(_family)
