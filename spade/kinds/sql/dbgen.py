"""Random databases for the SQL families: one schema per domain, rows drawn from a `random.Random`.

Every domain has the same three roles: a main table M (id, name, a group, a real and an integer measure, an
optional text that is sometimes NULL), a people/places table P (id, name, city) and an event table C linking
them (id, M id, P id, a quantity, a day). Questions are written against the roles (`Domain` holds their names),
so every family works in every domain. Rows put values exactly on a question's thresholds some of the time, so
off-by-one comparisons show.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Domain:
    m: str
    m_one: str
    grp: str
    groups: tuple[str, ...]
    real: str
    real_range: tuple[float, float]
    real_step: float
    int: str
    int_range: tuple[int, int]
    opt: str
    opts: tuple[str, ...]
    names: tuple[str, ...]
    p: str
    p_one: str
    p_names: tuple[str, ...]
    c: str
    c_one: str
    m_id: str
    p_id: str
    qty: str

    def spec(self, m_rows: list[list[Any]], p_rows: list[list[Any]], c_rows: list[list[Any]]) -> dict[str, Any]:
        return {"tables": [
            {"name": self.m, "columns": [["id", "INTEGER"], ["name", "TEXT"], [self.grp, "TEXT"], [self.real, "REAL"],
                                         [self.int, "INTEGER"], [self.opt, "TEXT"]], "rows": m_rows},
            {"name": self.p, "columns": [["id", "INTEGER"], ["name", "TEXT"], ["city", "TEXT"]], "rows": p_rows},
            {"name": self.c, "columns": [["id", "INTEGER"], [self.m_id, "INTEGER"], [self.p_id, "INTEGER"],
                                         [self.qty, "INTEGER"], ["day", "TEXT"]], "rows": c_rows},
        ]}


CITIES = ("Lyon", "Oslo", "Porto", "Quito", "Riga", "Turin")
DOMAINS = {
    "shop": Domain(
        m="products", m_one="product", grp="category", groups=("books", "food", "garden", "toys", "tools"),
        real="price", real_range=(1.0, 100.0), real_step=0.5, int="stock", int_range=(0, 30),
        opt="supplier", opts=("Acme", "Globex", "Initech"),
        names=("anvil", "apron", "basket", "bolt", "brush", "candle", "chair", "clamp", "cookie", "crayon", "drill",
               "easel", "fern", "flute", "glue", "hammer", "honey", "kite", "ladder", "lamp", "mallet", "map",
               "marble", "mug", "novel", "oats", "pliers", "puzzle", "rake", "rope", "saw", "seeds", "shovel",
               "spade", "tea", "tent", "trowel", "vase", "wrench", "yoyo"),
        p="customers", p_one="customer",
        p_names=("Ada", "Bea", "Cy", "Dev", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kit", "Lou", "Max", "Ned"),
        c="orders", c_one="order", m_id="product_id", p_id="customer_id", qty="quantity"),
    "company": Domain(
        m="employees", m_one="employee", grp="department", groups=("ops", "sales", "legal", "research"),
        real="salary", real_range=(2000.0, 9000.0), real_step=250.0, int="years", int_range=(0, 20),
        opt="manager", opts=("Moreau", "Novak", "Okafor"),
        names=("Abel", "Anya", "Boris", "Chen", "Dana", "Emil", "Esme", "Femi", "Gita", "Hugo", "Ines", "Ivan",
               "Joon", "Kai", "Lena", "Luis", "Mara", "Nia", "Omar", "Pia", "Quinn", "Rafa", "Rosa", "Sami", "Tara",
               "Ugo", "Vera", "Wade", "Xia", "Yara", "Zane", "Zoe"),
        p="projects", p_one="project",
        p_names=("Apollo", "Beacon", "Cobalt", "Delta", "Ember", "Falcon", "Granite", "Harbor", "Iris", "Juno"),
        c="assignments", c_one="assignment", m_id="employee_id", p_id="project_id", qty="hours"),
}


def real_value(d: Domain, rng: random.Random) -> float:
    lo, hi = d.real_range
    return float(round(rng.randint(int(lo / d.real_step), int(hi / d.real_step)) * d.real_step, 2))


def database(d: Domain, rng: random.Random, m_count: int, c_count: int, knobs: dict[str, Any]) -> dict[str, Any]:
    """A database with `m_count` main rows and `c_count` events; thresholds named in `knobs` (real_t, int_t,
    qty_t) are hit exactly now and then, the first main row is in the knobs' group and the first person in its
    city, values repeat now and then (ties), and groups get uneven sizes (so HAVING and small groups matter)."""
    names = rng.sample(d.names, min(m_count, len(d.names)))
    weights = [rng.choice((1, 2, 4)) for _ in d.groups]
    m_rows = []
    for i, name in enumerate(names, 1):
        real = real_value(d, rng)
        whole = rng.randint(*d.int_range)
        if "real_t" in knobs and rng.random() < 0.15:
            real = float(knobs["real_t"])
        if "int_t" in knobs and rng.random() < 0.15:
            whole = int(knobs["int_t"])
        if m_rows and rng.random() < 0.3:  # ties, so RANK, DENSE_RANK and "all of them on a tie" differ
            whole = rng.choice(m_rows)[4]
        if m_rows and rng.random() < 0.15:
            real = rng.choice(m_rows)[3]
        grp = rng.choices(d.groups, weights)[0]
        if "group" in knobs and i == 1:
            grp = knobs["group"]
        opt = None if rng.random() < 0.3 else rng.choice(d.opts)
        m_rows.append([i, name, grp, real, whole, opt])
    people = rng.sample(d.p_names, rng.randint(3, min(8, len(d.p_names))))
    p_rows = [[i, name, knobs["city"] if i == 1 and "city" in knobs else rng.choice(CITIES)]
              for i, name in enumerate(people, 1)]
    c_rows = []
    for i in range(1, c_count + 1 if m_rows else 1):
        qty = rng.randint(1, 12)
        if "qty_t" in knobs and rng.random() < 0.15:
            qty = int(knobs["qty_t"])
        day = f"2024-{rng.randint(1, 3):02d}-{rng.randint(1, 28):02d}"
        c_rows.append([i, rng.randint(1, len(m_rows)), rng.randint(1, len(p_rows)), qty, day])
    return d.spec(m_rows, p_rows, c_rows)
