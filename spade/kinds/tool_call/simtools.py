"""The simulated tools a tool-call task offers: each an OpenAI tools-format definition and a pure function over an
in-memory state (a test's only argument), never over files, sockets or processes.

In: a state dict (sections `weather`, `kv`, `calendar`, `users`, `products`, `orders`, `rates`, `pages`, `files`;
absent means empty) and a call's arguments, already checked against the tool's schema. Out: the call's JSON
result; the state is changed in place by tools that write. A call that cannot be served (unknown key, not enough
stock) returns {"error": "..."}, a result like any other. `fetch_url` and `read_file` look their argument up in the
state's `pages` / `files` tables: a URL or path is a dictionary key, nothing is fetched or opened.
Standard library only: this file also runs inside the sandbox, beside judge.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

MAX_TEXT = 2000  # longest string argument any tool takes
DATE = r"^\d{4}-\d{2}-\d{2}$"
CLOCK = r"^([01]\d|2[0-3]):[0-5]\d$"
LENGTH_UNITS = {"m": 1.0, "km": 1000.0, "cm": 0.01, "mi": 1609.344, "ft": 0.3048, "in": 0.0254}
MASS_UNITS = {"kg": 1.0, "g": 0.001, "lb": 0.45359237, "oz": 0.028349523125}
TEMPERATURE_UNITS = ("C", "F", "K")


class ToolError(Exception):
    """The call is well formed but cannot be served: its result is {"error": message}."""


def _text(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "string", "description": description, "maxLength": MAX_TEXT, **extra}


def _schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def _definition(name: str, description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "function",
            "function": {"name": name, "description": description, "parameters": _schema(properties, required)}}


# ---- weather ------------------------------------------------------------------------------------------------

def get_weather(state: dict, args: dict) -> dict:
    city = args["city"]
    row = state.get("weather", {}).get(city)
    if row is None:
        raise ToolError(f"unknown city {city!r}")
    unit = args.get("unit", "celsius")
    temp = row["temp_c"] if unit == "celsius" else row["temp_c"] * 9 / 5 + 32
    return {"city": city, "temperature": round(temp, 1), "unit": unit, "condition": row["condition"]}


def get_humidity(state: dict, args: dict) -> dict:
    row = state.get("weather", {}).get(args["city"])
    if row is None:
        raise ToolError(f"unknown city {args['city']!r}")
    return {"city": args["city"], "humidity_percent": row["humidity"]}


# ---- key-value store ----------------------------------------------------------------------------------------

def kv_get(state: dict, args: dict) -> dict:
    store = state.get("kv", {})
    if args["key"] not in store:
        raise ToolError(f"no such key {args['key']!r}")
    return {"key": args["key"], "value": store[args["key"]]}


def kv_set(state: dict, args: dict) -> dict:
    store = state.setdefault("kv", {})
    created = args["key"] not in store
    store[args["key"]] = args["value"]
    return {"key": args["key"], "value": args["value"], "created": created}


def kv_delete(state: dict, args: dict) -> dict:
    existed = state.get("kv", {}).pop(args["key"], None) is not None
    return {"key": args["key"], "deleted": existed}


def kv_list(state: dict, args: dict) -> dict:
    prefix = args.get("prefix", "")
    return {"keys": sorted(k for k in state.get("kv", {}) if k.startswith(prefix))}


# ---- calendar -----------------------------------------------------------------------------------------------

def list_events(state: dict, args: dict) -> dict:
    events = [e for e in state.get("calendar", []) if e["date"] == args["date"]]
    return {"date": args["date"], "events": sorted(events, key=lambda e: (e["start"], e["id"]))}


def create_event(state: dict, args: dict) -> dict:
    calendar = state.setdefault("calendar", [])
    event = {"id": 1 + max((e["id"] for e in calendar), default=0), "title": args["title"], "date": args["date"],
             "start": args["start"], "duration_minutes": args.get("duration_minutes", 60),
             "attendees": list(args.get("attendees", []))}
    calendar.append(event)
    return event


def delete_event(state: dict, args: dict) -> dict:
    calendar = state.get("calendar", [])
    kept = [e for e in calendar if e["id"] != args["event_id"]]
    if len(kept) == len(calendar):
        raise ToolError(f"no event with id {args['event_id']}")
    state["calendar"] = kept
    return {"event_id": args["event_id"], "deleted": True}


# ---- shop: users, products, orders --------------------------------------------------------------------------

def find_user(state: dict, args: dict) -> dict:
    for user in state.get("users", []):
        if user["email"] == args["email"]:
            return user
    raise ToolError(f"no user with email {args['email']!r}")


def get_product(state: dict, args: dict) -> dict:
    for product in state.get("products", []):
        if product["sku"] == args["sku"]:
            return product
    raise ToolError(f"no product {args['sku']!r}")


def create_order(state: dict, args: dict) -> dict:
    if not any(u["id"] == args["user_id"] for u in state.get("users", [])):
        raise ToolError(f"no user with id {args['user_id']}")
    product = get_product(state, {"sku": args["sku"]})
    if product["stock"] < args["quantity"]:
        raise ToolError(f"only {product['stock']} of {args['sku']!r} in stock")
    product["stock"] -= args["quantity"]
    orders = state.setdefault("orders", [])
    order = {"order_id": 1 + max((o["order_id"] for o in orders), default=0), "user_id": args["user_id"],
             "sku": args["sku"], "quantity": args["quantity"], "total": round(product["price"] * args["quantity"], 2)}
    orders.append(order)
    return order


def list_orders(state: dict, args: dict) -> dict:
    return {"user_id": args["user_id"], "orders": [o for o in state.get("orders", []) if o["user_id"] == args["user_id"]]}


# ---- conversions --------------------------------------------------------------------------------------------

def convert_units(state: dict, args: dict) -> dict:
    value, src, dst = args["value"], args["from_unit"], args["to_unit"]
    for table in (LENGTH_UNITS, MASS_UNITS):
        if src in table and dst in table:
            return {"value": round(value * table[src] / table[dst], 4), "unit": dst}
    if src in TEMPERATURE_UNITS and dst in TEMPERATURE_UNITS:
        kelvin = {"C": value + 273.15, "F": (value - 32) * 5 / 9 + 273.15, "K": value}[src]
        out = {"C": kelvin - 273.15, "F": (kelvin - 273.15) * 9 / 5 + 32, "K": kelvin}[dst]
        return {"value": round(out, 4), "unit": dst}
    raise ToolError(f"cannot convert {src} to {dst}")


def convert_currency(state: dict, args: dict) -> dict:
    rates = state.get("rates", {})  # units of each currency per US dollar
    rates = {"USD": 1.0, **rates}
    for code in (args["from_currency"], args["to_currency"]):
        if code not in rates:
            raise ToolError(f"no exchange rate for {code}")
    amount = args["amount"] / rates[args["from_currency"]] * rates[args["to_currency"]]
    return {"amount": round(amount, 2), "currency": args["to_currency"]}


# ---- lookups that look like I/O but are table lookups in the state ------------------------------------------

def fetch_url(state: dict, args: dict) -> dict:
    body = state.get("pages", {}).get(args["url"])
    return {"url": args["url"], "status": 404, "body": ""} if body is None else {"url": args["url"], "status": 200,
                                                                                    "body": body}


def read_file(state: dict, args: dict) -> dict:
    content = state.get("files", {}).get(args["path"])
    if content is None:
        raise ToolError(f"no file {args['path']!r}")
    return {"path": args["path"], "content": content}


_CITY = _text("City name, e.g. 'Lyon'")
_KEY = _text("The key", minLength=1, maxLength=200)
_USER_ID = {"type": "integer", "description": "The user's id", "minimum": 1, "maximum": 1_000_000}
_SKU = _text("Product code, e.g. 'B-17'", maxLength=50)
_CURRENCY = {"type": "string", "description": "ISO 4217 code, e.g. 'EUR'", "pattern": "^[A-Z]{3}$"}
_UNITS = sorted([*LENGTH_UNITS, *MASS_UNITS, *TEMPERATURE_UNITS])

TOOLS: dict[str, tuple[dict[str, Any], Callable[[dict, dict], Any]]] = {
    "get_weather": (_definition(
        "get_weather", "Current weather in a city. Returns {city, temperature, unit, condition}.",
        {"city": _CITY, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"],
                                 "description": "Temperature unit (default celsius)"}}, ["city"]), get_weather),
    "get_humidity": (_definition("get_humidity", "Current relative humidity in a city. Returns {city, humidity_percent}.", {"city": _CITY}, ["city"]),
                     get_humidity),
    "kv_get": (_definition("kv_get", "Read the value stored under a key. Returns {key, value}.", {"key": _KEY}, ["key"]), kv_get),
    "kv_set": (_definition("kv_set", "Store a string value under a key (replaces an existing value). Returns {key, value, created}.",
                           {"key": _KEY, "value": _text("The value")}, ["key", "value"]), kv_set),
    "kv_delete": (_definition("kv_delete", "Delete a key. Returns {key, deleted}.", {"key": _KEY}, ["key"]), kv_delete),
    "kv_list": (_definition("kv_list", "List the stored keys, sorted, optionally only those with a prefix. Returns {keys}.",
                            {"prefix": _text("Only keys starting with this", maxLength=200)}, []), kv_list),
    "list_events": (_definition("list_events", "The calendar's events on a date, by start time. Returns {date, events: [{id, title, date, start, duration_minutes, attendees}]}.",
                                {"date": _text("YYYY-MM-DD", pattern=DATE)}, ["date"]), list_events),
    "create_event": (_definition(
        "create_event", "Add an event to the calendar. Returns the event {id, title, date, start, duration_minutes, attendees}.",
        {"title": _text("Event title", minLength=1, maxLength=200), "date": _text("YYYY-MM-DD", pattern=DATE),
         "start": _text("Start time HH:MM (24h)", pattern=CLOCK),
         "duration_minutes": {"type": "integer", "minimum": 5, "maximum": 480, "description": "Default 60"},
         "attendees": {"type": "array", "items": _text("Attendee email", maxLength=200), "maxItems": 20}},
        ["title", "date", "start"]), create_event),
    "delete_event": (_definition("delete_event", "Remove an event by its id. Returns {event_id, deleted}.",
                                 {"event_id": {"type": "integer", "minimum": 1, "maximum": 1_000_000}},
                                 ["event_id"]), delete_event),
    "find_user": (_definition("find_user", "Look a customer up by email. Returns {id, name, email}.",
                              {"email": _text("Email address", maxLength=200)}, ["email"]), find_user),
    "get_product": (_definition("get_product", "A product by its SKU. Returns {sku, name, price (USD), stock}.",
                                {"sku": _SKU}, ["sku"]), get_product),
    "create_order": (_definition(
        "create_order", "Order a quantity of a product for a customer. Returns {order_id, user_id, sku, quantity, total}.",
        {"user_id": _USER_ID, "sku": _SKU, "quantity": {"type": "integer", "minimum": 1, "maximum": 100}},
        ["user_id", "sku", "quantity"]), create_order),
    "list_orders": (_definition("list_orders", "A customer's orders. Returns {user_id, orders: [{order_id, user_id, sku, quantity, total}]}.", {"user_id": _USER_ID}, ["user_id"]),
                    list_orders),
    "convert_units": (_definition(
        "convert_units", "Convert a length, mass or temperature between units. Returns {value, unit}.",
        {"value": {"type": "number", "minimum": -10**9, "maximum": 10**9},
         "from_unit": {"type": "string", "enum": _UNITS}, "to_unit": {"type": "string", "enum": _UNITS}},
        ["value", "from_unit", "to_unit"]), convert_units),
    "convert_currency": (_definition(
        "convert_currency", "Convert an amount of money at today's exchange rates. Returns {amount, currency}.",
        {"amount": {"type": "number", "minimum": 0, "maximum": 10**9}, "from_currency": _CURRENCY,
         "to_currency": _CURRENCY}, ["amount", "from_currency", "to_currency"]), convert_currency),
    "fetch_url": (_definition("fetch_url", "Fetch a page of the intranet by URL. Returns {url, status, body}.",
                              {"url": _text("The page's URL")}, ["url"]), fetch_url),
    "read_file": (_definition("read_file", "Read a document from the shared drive by path. Returns {path, content}.",
                              {"path": _text("The document's path")}, ["path"]), read_file),
}


def offered(signature: str, params: dict | None = None) -> list[str]:
    """The tool names a task offers: `params["tools"]` when it is a list (the ground truth exported for outside
    trainers carries params, not the signature), else the `signature`, comma-separated."""
    listed = (params or {}).get("tools")
    if isinstance(listed, list):
        return [name for name in listed if isinstance(name, str)]
    return [name.strip() for name in signature.split(",") if name.strip()]


def definitions(names: list[str]) -> list[dict[str, Any]]:
    """The OpenAI tools-format definitions of `names`, in that order."""
    return [TOOLS[name][0] for name in names]
