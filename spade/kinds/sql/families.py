"""SQL families: single-table filters, grouping, joins, subqueries and window functions, over dbgen's domains.

Difficulty picks the level of the question (five per family, `level = int(5 * difficulty)`) and the size of the
databases. Levels 0 and 1 are first steps: the database holds only the tables the question needs (no nullable
column), and the question names the table and the columns to return in backticks (level 0: one column or one
value, at most one plain filter; level 1: one step more). Levels 2-4 are questions in words over the whole
three-table database (more conditions, HAVING, three tables and outer joins, correlated subqueries, partitions
and running totals). The domain, columns, comparisons, aggregates, directions, extra conditions and constants
come from the draw. Each test's argument is a fresh random database of the same schema; edge tests are a tiny one
and one without events. `params.ordered` says whether the question asks for an order.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from spade.generate.family import Family, Variant
from spade.generate.registry import register
from spade.kinds.sql.dbgen import CITIES, DOMAINS, Domain, database

SIGNATURE = "SQLite SELECT statement"
ENTRY_POINT = "query"
_CMP = {">": "greater than", ">=": "at least", "<": "less than", "<=": "at most"}
_DIR = {"DESC": "from highest to lowest", "ASC": "from lowest to highest"}
_AGG = {"SUM": "total", "MAX": "highest", "MIN": "lowest"}
LEVELS = 5
FIRST_STEPS = 2
"""Levels 0 and 1 are first steps (tables and columns named); the rest are the questions in words."""


def _rows(say: int, columns: str, table: str, condition: str = "") -> str:
    """A first-step question asking for `columns` of the rows of `table` (that meet `condition`), with one of three
    verbs. Worded like the prompt's examples: with "From table `t`, select the ... of each row ..." the embedded
    135M model passed 2 of 40 first-step samples, with these 7 of 40."""
    return f"{('List', 'Return', 'Give')[say]} the {columns} of every row of table `{table}`{condition}."


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
        level = min(LEVELS - 1, int(difficulty * LEVELS))
        domain = rng.choice(sorted(DOMAINS))
        d = DOMAINS[domain]
        knobs: dict[str, Any] = {
            "domain": domain, "level": level, "rows": 8 + int(difficulty * 14), "events": 6 + int(difficulty * 20),
            "group": rng.choice(d.groups), "city": rng.choice(CITIES), "real_t": middle_real(d, rng),
            "int_t": middle_int(d, rng), "qty_t": rng.randint(3, 9), "k": rng.randint(2, 3),
            "limit": rng.randint(3, 5), "op": rng.choice(sorted(_CMP)), "measure": rng.choice(("real", "int")),
            "dir": rng.choice(sorted(_DIR)), "agg": rng.choice(sorted(_AGG)), "form": rng.randint(0, 1),
            "extra": rng.randint(0, 1)}
        if level < FIRST_STEPS:  # drawn here only, so the questions in words keep their draws
            knobs.update(say=rng.randint(0, 2), show=rng.randint(0, 2), tables="m")
            # Strict comparisons only: the 135M model wrote `>` for "at least" (1 of 8 level-1 filter samples passed).
            knobs["op"] = {">=": ">", "<=": "<"}.get(knobs["op"], knobs["op"])
            description, reference, ordered = self.first_step(level, d, knobs)
        else:
            description, reference, ordered = self.question(level - FIRST_STEPS, d, knobs)
            knobs["tables"] = "mpc"
        knobs["ordered"] = ordered
        return Variant(description, SIGNATURE, ENTRY_POINT, reference, knobs)

    def first_step(self, level: int, d: Domain, k: dict[str, Any]) -> tuple[str, str, bool]:
        """(question, reference query, ordered) for levels 0 and 1: tables and columns named in backticks. May set
        k["tables"], the tables the database keeps (default "m"): m (main), p (people/places), c (events)."""
        raise NotImplementedError

    def question(self, level: int, d: Domain, k: dict[str, Any]) -> tuple[str, str, bool]:
        """(question, reference query, whether the question asks for an order) for levels 2-4 (here 0-2)."""
        raise NotImplementedError

    def random_input(self, knobs: Mapping[str, Any], rng: random.Random) -> list[Any]:
        d = DOMAINS[knobs["domain"]]
        return [_shown(database(d, rng, rng.randint(knobs["rows"] // 2, knobs["rows"]),
                                rng.randint(knobs["events"] // 2, knobs["events"]), dict(knobs)), knobs)]

    def edge_inputs(self, knobs: Mapping[str, Any]) -> list[list[Any]]:
        d = DOMAINS[knobs["domain"]]
        rng = random.Random(f"sql-edge|{self.name}|{sorted(knobs.items())}")
        return [[_shown(database(d, rng, 2, 1, dict(knobs)), knobs)],
                [_shown(database(d, rng, 6, 0, dict(knobs)), knobs)]]


def _shown(spec: dict[str, Any], knobs: Mapping[str, Any]) -> dict[str, Any]:
    """The database a question sees: all three tables (`tables` = "mpc"), or, for first steps, only the ones it
    needs, and the main table without its nullable column (the last one), so there is less to get wrong."""
    if knobs.get("tables", "mpc") == "mpc":
        return spec
    main, places, events = spec["tables"]
    slim = {"name": main["name"], "columns": main["columns"][:-1], "rows": [row[:-1] for row in main["rows"]]}
    return {"tables": [t for role, t in zip("mpc", (slim, places, events)) if role in knobs["tables"]]}


def _measure(d: Domain, k: dict[str, Any], other: bool = False) -> tuple[str, str]:
    """The drawn measure column and its threshold (`other`: the other measure)."""
    real = (k["measure"] == "real") != other
    return (d.real, _num(k["real_t"])) if real else (d.int, str(k["int_t"]))


class Filter(SqlFamily):
    name = "sql_filter"
    tags = ("sql", "filter")

    def first_step(self, level: int, d: Domain, k: dict[str, Any]) -> tuple[str, str, bool]:
        if level == 0:  # `name` only: asked for another column, the 135M model still returned `name` or COUNT(*)
            shown = "name"
            return (_rows(k["say"], f"`{shown}`", d.m, f" whose `{d.grp}` is '{k['group']}'"),
                    f"SELECT {shown} FROM {d.m} WHERE {d.grp} = '{k['group']}'", False)
        col, t = _measure(d, k)
        shown = ("name", "name", d.grp)[k["show"]]
        return (_rows(k["say"], f"`{shown}`", d.m, f" whose `{col}` is {_CMP[k['op']]} {t}"),
                f"SELECT {shown} FROM {d.m} WHERE {col} {k['op']} {t}", False)

    def question(self, level: int, d: Domain, k: dict[str, Any]) -> tuple[str, str, bool]:
        col, t = _measure(d, k)
        other, t2 = _measure(d, k, other=True)
        g, op, way = k["group"], k["op"], k["dir"]
        if level == 0:
            shown, select = (f"name and {col}", f"name, {col}") if k["form"] else ("name", "name")
            return (f"List the {shown} of every {d.m_one} whose {col} is {_CMP[op]} {t}.",
                    f"SELECT {select} FROM {d.m} WHERE {col} {op} {t}", False)
        if level == 1:
            return ((f"List the name and {col} of the {d.m} in {d.grp} '{g}' with {col} {_CMP[op]} {t}, ordered "
                     f"by {col} {_DIR[way]}, then by name."),
                    (f"SELECT name, {col} FROM {d.m} WHERE {d.grp} = '{g}' AND {col} {op} {t} "
                     f"ORDER BY {col} {way}, name"), True)
        null, null_sql = ("no", "IS NULL") if k["form"] else ("a", "IS NOT NULL")
        return ((f"Among the {d.m} not in {d.grp} '{g}', list the name and {col} of those with {null} {d.opt} or "
                 f"with {other} {_CMP[op]} {t2}. Order by {col} {_DIR[way]}, then by name, and return only the "
                 f"first {k['limit']} rows."),
                (f"SELECT name, {col} FROM {d.m} WHERE {d.grp} <> '{g}' AND ({d.opt} {null_sql} OR {other} {op} "
                 f"{t2}) ORDER BY {col} {way}, name LIMIT {k['limit']}"), True)


class Aggregate(SqlFamily):
    name = "sql_aggregate"
    tags = ("sql", "aggregate")

    def first_step(self, level: int, d: Domain, k: dict[str, Any]) -> tuple[str, str, bool]:
        col, _ = _measure(d, k)
        agg = k["agg"]
        if level == 1:
            return ((f"For each `{d.grp}` in table `{d.m}`, return the `{d.grp}` and the {_AGG[agg]} `{col}` of its "
                     f"rows.",
                     f"Group the rows of table `{d.m}` by `{d.grp}`: return each `{d.grp}` and the {_AGG[agg]} "
                     f"`{col}` in it.",
                     f"Per `{d.grp}` of table `{d.m}`, return the `{d.grp}` and the {_AGG[agg]} `{col}`.")[k["say"]],
                    f"SELECT {d.grp}, {agg}({col}) FROM {d.m} GROUP BY {d.grp}", False)
        # Level 0: one count with one equality, the shape of the prompt's COUNT example. Asked for the highest or
        # total of a column instead, the 135M model passed 0 of 8 samples (probe_kind.py sql 0 4 2, seed 7).
        where = (f" whose `{d.grp}` is '{k['group']}'", f" WHERE {d.grp} = '{k['group']}'")
        return ((f"Return the number of rows of table `{d.m}`{where[0]} (one value).",
                 f"Count the rows of table `{d.m}`{where[0]} (one value).",
                 f"How many rows of table `{d.m}` are there{where[0]}? Return that number.")[k["say"]],
                f"SELECT COUNT(*) FROM {d.m}{where[1]}", False)

    def question(self, level: int, d: Domain, k: dict[str, Any]) -> tuple[str, str, bool]:
        col, t = _measure(d, k)
        other, _ = _measure(d, k, other=True)
        op, agg, way = k["op"], k["agg"], k["dir"]
        if level == 0:
            return ((f"For each {d.grp}, return the {d.grp} and the number of its {d.m} with {col} {_CMP[op]} {t} "
                     f"(leave out a {d.grp} with none)."),
                    f"SELECT {d.grp}, COUNT(*) FROM {d.m} WHERE {col} {op} {t} GROUP BY {d.grp}", False)
        if level == 1:
            second = "MIN" if agg == "MAX" else "MAX"
            return ((f"For each {d.grp}, return the {d.grp}, the {_AGG[agg]} {other} and the {_AGG[second]} {col} "
                     f"of its {d.m} whose {col} is {_CMP[op]} {t}; order by {d.grp} "
                     f"{'in reverse alphabetical order' if way == 'DESC' else 'alphabetically'}."),
                    (f"SELECT {d.grp}, {agg}({other}), {second}({col}) FROM {d.m} WHERE {col} {op} {t} "
                     f"GROUP BY {d.grp} ORDER BY {d.grp} {way}"), True)
        value, value_sql = ((f"average {d.real} rounded to 2 decimals", f"ROUND(AVG({d.real}), 2)") if k["form"]
                            else (f"{_AGG[agg]} {d.int}", f"{agg}({d.int})"))
        among, where = ((f" with {d.opt} set", f" WHERE {d.opt} IS NOT NULL") if k["extra"] else ("", ""))
        return ((f"Considering only the {d.m}{among}: for each {d.grp} with at least {k['k']} of them, return the "
                 f"{d.grp} and the {value}; order by that value {_DIR[way]}, then by {d.grp}."),
                (f"SELECT {d.grp}, {value_sql} AS v FROM {d.m}{where} GROUP BY {d.grp} HAVING COUNT(*) >= {k['k']} "
                 f"ORDER BY v {way}, {d.grp}"), True)


class Join(SqlFamily):
    name = "sql_join"
    tags = ("sql", "join")

    def first_step(self, level: int, d: Domain, k: dict[str, Any]) -> tuple[str, str, bool]:
        other, other_one, other_id = (d.p, d.p_one, d.p_id) if k["form"] else (d.m, d.m_one, d.m_id)
        k["tables"] = "pc" if k["form"] else "mc"
        own = (d.qty, "day", "id")[k["show"]]
        where, where_sql = ((f" whose `{d.qty}` is {_CMP[k['op']]} {k['qty_t']}",
                             f" WHERE {d.c}.{d.qty} {k['op']} {k['qty_t']}") if level else ("", ""))
        asked, select = ((f"its `{own}` and the `name` of its {other_one}", f"{d.c}.{own}, {other}.name")
                         if k["say"] != 1 else
                         (f"the `name` of its {other_one} and its `{own}`", f"{other}.name, {d.c}.{own}"))
        return (f"For every row of table `{d.c}`{where}, return {asked} (join `{other}` on "
                f"`{d.c}.{other_id} = {other}.id`).",
                f"SELECT {select} FROM {d.c} JOIN {other} ON {d.c}.{other_id} = {other}.id{where_sql}", False)

    def question(self, level: int, d: Domain, k: dict[str, Any]) -> tuple[str, str, bool]:
        op, t, agg = k["op"], k["qty_t"], k["agg"]
        if level == 0:
            if k["form"]:
                only, only_sql = ((f" of {_a(d.p_one)} in {k['city']}", f" AND p.city = '{k['city']}'")
                                  if k["extra"] else ("", ""))
                return ((f"For every {d.c_one}{only} with {d.qty} {_CMP[op]} {t}, return the name of its "
                         f"{d.p_one} ({d.c}.{d.p_id} is {d.p}.id), its day and its {d.qty}."),
                        (f"SELECT p.name, c.day, c.{d.qty} FROM {d.c} AS c JOIN {d.p} AS p ON c.{d.p_id} = p.id "
                         f"WHERE c.{d.qty} {op} {t}{only_sql}"), False)
            only, only_sql = ((f" of {_a(d.m_one)} in {d.grp} '{k['group']}'", f" AND m.{d.grp} = '{k['group']}'")
                              if k["extra"] else ("", ""))
            return ((f"For every {d.c_one}{only} with {d.qty} {_CMP[op]} {t}, return the name of its {d.m_one} "
                     f"({d.c}.{d.m_id} is {d.m}.id) and the {d.qty}."),
                    (f"SELECT m.name, c.{d.qty} FROM {d.c} AS c JOIN {d.m} AS m ON c.{d.m_id} = m.id "
                     f"WHERE c.{d.qty} {op} {t}{only_sql}"), False)
        if level == 1:
            counted, counted_sql = ((f" (counting only {d.c} with {d.qty} {_CMP[op]} {t})", f" AND c.{d.qty} {op} {t}")
                                    if k["extra"] else ("", ""))
            if k["form"]:
                return ((f"For each {d.p_one} with any {d.c_one} of {_a(d.m_one)} in {d.grp} '{k['group']}', "
                         f"return the {d.p_one}'s name and the {_AGG[agg]} {d.qty} of those {d.c}{counted}; order "
                         f"by that value from highest to lowest, then by name."),
                        (f"SELECT p.name, {agg}(c.{d.qty}) AS v FROM {d.c} AS c JOIN {d.m} AS m "
                         f"ON c.{d.m_id} = m.id JOIN {d.p} AS p ON c.{d.p_id} = p.id WHERE m.{d.grp} = "
                         f"'{k['group']}'{counted_sql} GROUP BY p.id, p.name ORDER BY v DESC, p.name"), True)
            return ((f"For each {d.m_one} with any {d.c_one} for {_a(d.p_one)} in {k['city']}, return the "
                     f"{d.m_one}'s name and the {_AGG[agg]} {d.qty} of those {d.c}{counted}; order by that value "
                     f"from highest to lowest, then by name."),
                    (f"SELECT m.name, {agg}(c.{d.qty}) AS v FROM {d.c} AS c JOIN {d.m} AS m ON c.{d.m_id} = m.id "
                     f"JOIN {d.p} AS p ON c.{d.p_id} = p.id WHERE p.city = '{k['city']}'{counted_sql} "
                     f"GROUP BY m.id, m.name "
                     f"ORDER BY v DESC, m.name"), True)
        if k["form"]:
            col, limit = _measure(d, k)
            return ((f"For every {d.p_one} (all of them, 0 when none), return the name and the number of its {d.c} "
                     f"whose {d.m_one} has {col} {_CMP[op]} {limit}; order by that number {_DIR[k['dir']]}, then "
                     f"by name."),
                    (f"SELECT p.name, COUNT(m.id) AS n FROM {d.p} AS p LEFT JOIN {d.c} AS c ON c.{d.p_id} = p.id "
                     f"LEFT JOIN {d.m} AS m ON m.id = c.{d.m_id} AND m.{col} {op} {limit} "
                     f"GROUP BY p.id, p.name ORDER BY n {k['dir']}, p.name"), True)
        return ((f"For every {d.m_one} (all of them, 0 when none), return the name and the number of its {d.c} "
                 f"with {d.qty} {_CMP[op]} {t}; order by that number {_DIR[k['dir']]}, then by name."),
                (f"SELECT m.name, COUNT(c.id) AS n FROM {d.m} AS m LEFT JOIN {d.c} AS c ON c.{d.m_id} = m.id "
                 f"AND c.{d.qty} {op} {t} GROUP BY m.id, m.name ORDER BY n {k['dir']}, m.name"), True)


class Subquery(SqlFamily):
    name = "sql_subquery"
    tags = ("sql", "subquery")

    def first_step(self, level: int, d: Domain, k: dict[str, Any]) -> tuple[str, str, bool]:
        col, _ = _measure(d, k)
        side, op = ("above", ">") if k["form"] else ("below", "<")
        scope, scope_sql = ((f"the rows whose `{d.grp}` is '{k['group']}'", f" WHERE {d.grp} = '{k['group']}'")
                            if level else (f"all rows of `{d.m}`", ""))
        shown = ("name", "name", d.grp)[k["show"]] if level else "name"  # level 0: `name`, as in the example
        return (_rows(k["say"], f"`{shown}`", d.m, f" whose `{col}` is {side} the average `{col}` of {scope}"),
                f"SELECT {shown} FROM {d.m} WHERE {col} {op} (SELECT AVG({col}) FROM {d.m}{scope_sql})", False)

    def question(self, level: int, d: Domain, k: dict[str, Any]) -> tuple[str, str, bool]:
        col, _ = _measure(d, k)
        g = k["group"]
        if level == 0:
            side, op = ("above", ">") if k["form"] else ("below", "<")
            scope, scope_sql = ((f"with no {d.opt}", f"{d.opt} IS NULL") if k["extra"]
                                else (f"in {d.grp} '{g}'", f"{d.grp} = '{g}'"))
            return (f"List the name of every {d.m_one} whose {col} is {side} the average {col} of the {d.m} {scope}.",
                    f"SELECT name FROM {d.m} WHERE {col} {op} (SELECT AVG({col}) FROM {d.m} WHERE {scope_sql})",
                    False)
        if level == 1:
            has, not_in = ("has no", "NOT IN") if k["form"] else ("has at least one", "IN")
            return ((f"List the name of every {d.m_one} that {has} {d.c_one} with {d.qty} {_CMP[k['op']]} "
                     f"{k['qty_t']} ({d.c}.{d.m_id} is {d.m}.id)."),
                    (f"SELECT name FROM {d.m} WHERE id {not_in} (SELECT {d.m_id} FROM {d.c} "
                     f"WHERE {d.qty} {k['op']} {k['qty_t']})"), False)
        other, t2 = _measure(d, k, other=True)
        best = "MAX" if k["agg"] != "MIN" else "MIN"
        return ((f"For each {d.grp}, return the {d.grp}, name and {col} of the {d.m} with the "
                 f"{_AGG[best]} {col} in that {d.grp} among those with {other} {_CMP[k['op']]} {t2} (all of them on "
                 f"a tie); order by {d.grp}, then name."),
                (f"SELECT a.{d.grp}, a.name, a.{col} FROM {d.m} AS a WHERE a.{other} {k['op']} {t2} AND "
                 f"a.{col} = (SELECT {best}(b.{col}) FROM {d.m} AS b WHERE b.{d.grp} = a.{d.grp} "
                 f"AND b.{other} {k['op']} {t2}) ORDER BY a.{d.grp}, a.name"), True)


class Window(SqlFamily):
    name = "sql_window"
    tags = ("sql", "window")

    def first_step(self, level: int, d: Domain, k: dict[str, Any]) -> tuple[str, str, bool]:
        col, _ = _measure(d, k)
        way = k["dir"]
        if level == 0:
            shown, select = "`name`", "name"  # as in the prompt's example: asked for more, the model kept `name`
            place = ("position", "row number", "place")[k["say"]]
            return ((f"Return the {shown} and the {place} (1 for the first) of every row of table `{d.m}` when the "
                     f"rows are sorted by `{col}` {_DIR[way]}, ties broken by `name`: use ROW_NUMBER()."),
                    f"SELECT {select}, ROW_NUMBER() OVER (ORDER BY {col} {way}, name) FROM {d.m}", False)
        other, t2 = _measure(d, k, other=True)
        return ((f"Among the rows of table `{d.m}` whose `{other}` is {_CMP[k['op']]} {t2}, return the `name`, the "
                 f"`{col}` and the position (1 for the first) when sorted by `{col}` {_DIR[way]}, ties broken by "
                 f"`name`: use ROW_NUMBER()."),
                (f"SELECT name, {col}, ROW_NUMBER() OVER (ORDER BY {col} {way}, name) FROM {d.m} "
                 f"WHERE {other} {k['op']} {t2}"), False)

    def question(self, level: int, d: Domain, k: dict[str, Any]) -> tuple[str, str, bool]:
        col, _ = _measure(d, k)
        other, t2 = _measure(d, k, other=True)
        way = k["dir"]
        if level == 0:
            return ((f"Number the {d.m} with {other} {_CMP[k['op']]} {t2} by {col} {_DIR[way]} (ties broken by "
                     f"name): return the name, the {col} and the position (1 for the first), ordered by position."),
                    (f"SELECT name, {col}, ROW_NUMBER() OVER (ORDER BY {col} {way}, name) AS position "
                     f"FROM {d.m} WHERE {other} {k['op']} {t2} ORDER BY position"), True)
        if level == 1:
            rank, how = (("RANK", "the next rank skipping, as RANK does") if k["form"]
                         else ("DENSE_RANK", "the next rank not skipping, as DENSE_RANK does"))
            among, where = ((f" with {d.real} {_CMP[k['op']]} {_num(k['real_t'])}",
                             f" WHERE {d.real} {k['op']} {_num(k['real_t'])}") if k["extra"] else ("", ""))
            return ((f"Within each {d.grp}, rank the {d.m}{among} by {d.int} {_DIR[way]}, equal values sharing a "
                     f"rank and {how}; return the {d.grp}, the name and the rank, ordered by {d.grp}, rank, then "
                     f"name."),
                    (f"SELECT {d.grp}, name, {rank}() OVER (PARTITION BY {d.grp} ORDER BY {d.int} {way}) AS r "
                     f"FROM {d.m}{where} ORDER BY {d.grp}, r, name"), True)
        run_fn = "SUM" if k["agg"] == "SUM" or k["form"] else "MAX"
        key, owner = (d.p_id, d.p_one) if k["extra"] else (d.m_id, d.m_one)
        op, t = (">", k["qty_t"] // 3) if k["op"] in (">", ">=") else ("<", 13 - k["qty_t"] // 3)
        return ((f"For every {d.c_one} with {d.qty} {_CMP[op]} {t}, return its {key}, its id, its day and the "
                 f"running {_AGG[run_fn]} {d.qty} over that {owner}'s {d.c} of this kind up to and including it "
                 f"(taken in order of day, then id); order by {key}, day, then id."),
                (f"SELECT {key}, id, day, {run_fn}({d.qty}) OVER (PARTITION BY {key} ORDER BY day, id) AS "
                 f"running FROM {d.c} WHERE {d.qty} {op} {t} ORDER BY {key}, day, id"), True)


for _family in (Filter(), Aggregate(), Join(), Subquery(), Window()):
    register(_family)
