"""Procedural tool-call families: a request over the simulated tools, the reference plan, and states to run it on.

Each family maps (difficulty, rng) to a Variant: the request (description), the offered tools (signature, with
distractors), the reference plan (a JSON list of calls, "$N.path" for an earlier result) and knobs enough to draw
more states. A test's args are [state]; states differ per test (ids, values, stock), so a plan that hard-codes what
it should have looked up fails the hidden tests. Difficulty knobs: offered tools (distractors), arguments per call,
plan length (1-3) and whether a call depends on an earlier one's result.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from typing import Any

from spade.generate.family import Family, Variant
from spade.generate.registry import register
from spade.kinds.tool_call.simtools import TOOLS

KIND = "tool_call"
ENTRY = "tool_calls"
CITIES = ("Lyon", "Oslo", "Lima", "Perth", "Quito", "Dakar", "Hanoi", "Porto", "Tunis", "Omaha")
CONDITIONS = ("sunny", "cloudy", "rain", "snow", "fog", "windy")
NAMES = ("ana", "ben", "chloe", "dev", "emma", "farid", "gus", "hana", "ivan", "jo")
PRODUCTS = (("B-17", "kettle"), ("C-03", "lamp"), ("D-42", "chair"), ("E-08", "desk fan"), ("F-11", "toaster"),
            ("G-25", "blender"), ("H-30", "mug set"))
CURRENCIES = ("EUR", "GBP", "JPY", "CHF", "CAD", "INR")
KEYS = ("theme", "lang", "owner", "region", "quota", "mode", "backup_dir", "greeting")


def plan(*calls: tuple[str, dict[str, Any]]) -> str:
    return json.dumps([{"name": name, "arguments": arguments} for name, arguments in calls])


def offer(needed: list[str], difficulty: float, rng: random.Random) -> list[str]:
    """The needed tools plus distractors (0 at difficulty 0, up to 6 at 1), shuffled."""
    others = sorted(set(TOOLS) - set(needed))
    n = min(len(others), round(difficulty * 6 + rng.random() * 0.9))
    tools = needed + rng.sample(others, n)
    rng.shuffle(tools)
    return tools


class ToolFamily(Family):
    kind = KIND

    def edge_inputs(self, knobs: Mapping[str, Any]) -> list[list[Any]]:
        return [self.random_input(knobs, random.Random(f"{self.name}-edge-{k}")) for k in range(2)]


class Weather(ToolFamily):
    """One call: the temperature (optionally in fahrenheit) or humidity of a city; distractors rise with difficulty."""

    name, tags = "tool_call_weather", ("tool_call", "single_call")

    def variant(self, difficulty: float, rng: random.Random) -> Variant:
        city = rng.choice(CITIES)
        humidity = difficulty > 0.5 and rng.random() < 0.4
        fahrenheit = not humidity and difficulty > 0.25 and rng.random() < 0.7
        if humidity:
            text, call = f"How humid is it in {city} right now?", ("get_humidity", {"city": city})
        elif fahrenheit:
            text, call = (f"What is the temperature in {city} right now, in fahrenheit?",
                          ("get_weather", {"city": city, "unit": "fahrenheit"}))
        else:
            text, call = f"What's the weather like in {city}?", ("get_weather", {"city": city})
        needed = ["get_weather", "get_humidity"] if difficulty > 0.5 else [call[0]]
        tools = offer(needed, difficulty, rng)
        return Variant(text, ", ".join(tools), ENTRY, plan(call),
                       {"city": city, "tools": tools, "n_tools": len(tools), "n_args": len(call[1]), "plan_length": 1,
                        "dependent": False})

    def random_input(self, knobs: Mapping[str, Any], rng: random.Random) -> list[Any]:
        cities = {knobs["city"], *rng.sample(CITIES, 4)}
        return [{"weather": {c: {"temp_c": round(rng.uniform(-20, 40), 1), "condition": rng.choice(CONDITIONS),
                                 "humidity": rng.randint(10, 100)} for c in sorted(cities)}}]


def _kv_state(knobs: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
    keys = set(rng.sample(KEYS, 3)) | {knobs["src"]}
    if rng.random() < 0.5:
        keys.add(knobs["dst"])
    return {"kv": {k: f"{k}-{rng.randint(0, 999)}" for k in sorted(keys)}}


class KeyValue(ToolFamily):
    """Read, write, copy or move values in a key-value store: 1 call, then get→set ("$0.value"), then get→set→delete."""

    name, tags = "tool_call_kv", ("tool_call", "state")

    def variant(self, difficulty: float, rng: random.Random) -> Variant:
        src, dst = rng.sample(KEYS, 2)
        length = 1 + (difficulty > 0.3) + (difficulty > 0.65)
        if length == 1 and rng.random() < 0.5:
            text, calls = f"What is stored under the key '{src}'?", [("kv_get", {"key": src})]
        elif length == 1:
            value = f"{rng.choice(NAMES)}-{rng.randint(1, 99)}"
            text, calls = f"Store the value '{value}' under the key '{dst}'.", [("kv_set", {"key": dst, "value": value})]
        elif length == 2:
            text = f"Copy the value stored under '{src}' to the key '{dst}'."
            calls = [("kv_get", {"key": src}), ("kv_set", {"key": dst, "value": "$0.value"})]
        else:
            text = f"Rename the key '{src}' to '{dst}': its value moves to '{dst}' and '{src}' is removed."
            calls = [("kv_get", {"key": src}), ("kv_set", {"key": dst, "value": "$0.value"}),
                     ("kv_delete", {"key": src})]
        tools = offer(sorted({"kv_get", "kv_set", "kv_delete", "kv_list"} if difficulty > 0.5 else {c for c, _ in calls}),
                      difficulty, rng)
        return Variant(text, ", ".join(tools), ENTRY, plan(*calls),
                       {"src": src, "dst": dst, "tools": tools, "n_tools": len(tools), "n_args": max(len(a) for _, a in calls),
                        "plan_length": len(calls), "dependent": len(calls) > 1})

    def random_input(self, knobs: Mapping[str, Any], rng: random.Random) -> list[Any]:
        return [_kv_state(knobs, rng)]


def _calendar(knobs: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
    ids = rng.sample(range(1, 1000), 5)
    dates = [knobs["date"], knobs["date"], knobs["other_date"], knobs["date"], knobs["other_date"]]
    events = [{"id": i, "title": rng.choice(("standup", "review", "lunch", "1:1", "demo")), "date": d,
               "start": f"{rng.randint(8, 17):02d}:{rng.choice((0, 15, 30, 45)):02d}", "duration_minutes": 30,
               "attendees": []} for i, d in zip(ids, dates)]
    return {"calendar": events[: rng.randint(1, 5)] if rng.random() < 0.5 else events}


class Calendar(ToolFamily):
    """Create an event (3 to 5 arguments) or cancel the earliest event of a day (list_events → delete_event
    "$0.events.0.id"), then book a replacement (3 calls)."""

    name, tags = "tool_call_calendar", ("tool_call", "dates")

    def variant(self, difficulty: float, rng: random.Random) -> Variant:
        month, day = rng.randint(1, 12), rng.randint(1, 28)
        date, other = f"2026-{month:02d}-{day:02d}", f"2026-{month:02d}-{day % 28 + 1:02d}"
        title = rng.choice(("Budget review", "Team lunch", "Dentist", "Planning", "Interview"))
        start = f"{rng.randint(8, 17):02d}:{rng.choice(('00', '30'))}"
        args: dict[str, Any] = {"title": title, "date": date, "start": start}
        text = f"Put '{title}' in my calendar on {date} at {start}"
        if difficulty > 0.3:
            minutes, guest = rng.choice((15, 45, 90, 120)), f"{rng.choice(NAMES)}@example.com"
            args |= {"duration_minutes": minutes, "attendees": [guest]}
            text += f" for {minutes} minutes, and invite {guest}"
        if difficulty <= 0.6:
            calls = [("create_event", args)]
            text += "."
        else:
            calls = [("list_events", {"date": date}), ("delete_event", {"event_id": "$0.events.0.id"})]
            text = f"Cancel my earliest event on {date}."
            if difficulty > 0.8:
                calls.append(("create_event", args))
                text = text[:-1] + ", and in its place " + f"put '{title}' in my calendar that day at {start}."
        tools = offer(sorted({c for c, _ in calls}), difficulty, rng)
        return Variant(text, ", ".join(tools), ENTRY, plan(*calls),
                       {"date": date, "other_date": other, "tools": tools, "n_tools": len(tools),
                        "n_args": max(len(a) for _, a in calls), "plan_length": len(calls), "dependent": len(calls) > 1})

    def random_input(self, knobs: Mapping[str, Any], rng: random.Random) -> list[Any]:
        state = _calendar(knobs, rng)
        if not any(e["date"] == knobs["date"] for e in state["calendar"]):
            state["calendar"][0]["date"] = knobs["date"]
        return [state]


def _shop(knobs: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
    emails = sorted({knobs["email"], *(f"{n}@example.com" for n in rng.sample(NAMES, 3))})
    ids = rng.sample(range(1, 500), len(emails))
    users = [{"id": i, "name": e.split("@")[0].title(), "email": e} for i, e in zip(ids, emails)]
    skus = sorted({knobs["sku"], *(s for s, _ in rng.sample(PRODUCTS, 3))})
    names = dict(PRODUCTS)
    products = [{"sku": s, "name": names[s], "price": round(rng.uniform(5, 200), 2), "stock": rng.randint(3, 40)}
                for s in skus]
    orders = [{"order_id": k + 1, "user_id": rng.choice(ids), "sku": rng.choice(skus), "quantity": rng.randint(1, 3),
               "total": 10.0} for k in range(rng.randint(0, 3))]
    return {"users": users, "products": products, "orders": orders}


class Shop(ToolFamily):
    """A product lookup (1 call), an order for a customer found by email (find_user → create_order "$0.id"), and
    that customer's orders listed after it (3 calls)."""

    name, tags = "tool_call_shop", ("tool_call", "database")

    def variant(self, difficulty: float, rng: random.Random) -> Variant:
        email = f"{rng.choice(NAMES)}@example.com"
        sku, product = rng.choice(PRODUCTS)
        quantity = rng.randint(1, 3)
        if difficulty <= 0.3:
            text, calls = f"How much does product {sku} cost and how many are in stock?", [("get_product", {"sku": sku})]
        else:
            text = f"The customer {email} wants {quantity} of product {sku} ({product}). Place the order."
            calls = [("find_user", {"email": email}),
                     ("create_order", {"user_id": "$0.id", "sku": sku, "quantity": quantity})]
            if difficulty > 0.7:
                calls.append(("list_orders", {"user_id": "$0.id"}))
                text += " Then show me all of their orders."
        tools = offer(sorted({c for c, _ in calls}), difficulty, rng)
        return Variant(text, ", ".join(tools), ENTRY, plan(*calls),
                       {"email": email, "sku": sku, "tools": tools, "n_tools": len(tools), "n_args": max(len(a) for _, a in calls),
                        "plan_length": len(calls), "dependent": len(calls) > 1})

    def random_input(self, knobs: Mapping[str, Any], rng: random.Random) -> list[Any]:
        return [_shop(knobs, rng)]


class Convert(ToolFamily):
    """Money at the state's exchange rates or units (1 call, 3 arguments), then a product's price in another
    currency (get_product → convert_currency "$0.price")."""

    name, tags = "tool_call_convert", ("tool_call", "math")

    def variant(self, difficulty: float, rng: random.Random) -> Variant:
        currency = rng.choice(CURRENCIES)
        sku, product = rng.choice(PRODUCTS)
        if difficulty <= 0.5 and rng.random() < 0.5:
            amount = rng.randint(2, 500)
            text = f"How many {currency} is {amount} USD today?"
            calls = [("convert_currency", {"amount": amount, "from_currency": "USD", "to_currency": currency})]
        elif difficulty <= 0.5:
            src, dst = rng.choice((("mi", "km"), ("lb", "kg"), ("F", "C"), ("ft", "m"), ("oz", "g")))
            value = round(rng.uniform(1, 100), 1)
            text = f"Convert {value} {src} to {dst}."
            calls = [("convert_units", {"value": value, "from_unit": src, "to_unit": dst})]
        else:
            text = f"What does product {sku} ({product}) cost in {currency}?"
            calls = [("get_product", {"sku": sku}),
                     ("convert_currency", {"amount": "$0.price", "from_currency": "USD", "to_currency": currency})]
        tools = offer(sorted({c for c, _ in calls} | ({"convert_units", "convert_currency"} if difficulty > 0.5 else set())),
                      difficulty, rng)
        return Variant(text, ", ".join(tools), ENTRY, plan(*calls),
                       {"sku": sku, "email": "ana@example.com", "tools": tools, "n_tools": len(tools),
                        "n_args": max(len(a) for _, a in calls), "plan_length": len(calls), "dependent": len(calls) > 1})

    def random_input(self, knobs: Mapping[str, Any], rng: random.Random) -> list[Any]:
        state = _shop(knobs, rng)
        return [{"rates": {c: round(rng.uniform(0.5, 150), 4) for c in CURRENCIES}, "products": state["products"]}]


FAMILIES = tuple(register(f) for f in (Weather(), KeyValue(), Calendar(), Shop(), Convert()))
