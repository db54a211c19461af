"""One worked example per simulated tool: a request in words and the call that answers it, shown in a tool-call
prompt so a small model sees how a request's values become arguments (measured: with only a fixed `kv_get`
example, the embedded 135M model copied that call into every answer).

In: a tool name. Out: (request, arguments). The values are outside every family's pools (cities, keys, products,
users, dates), so an example never is a task's answer; tests/kinds/tool_call checks that, and that each example's
arguments satisfy its tool's schema.
"""

from __future__ import annotations

from typing import Any

EXAMPLES: dict[str, tuple[str, dict[str, Any]]] = {
    "get_weather": ("How warm is it in Cairo right now?", {"city": "Cairo"}),
    "get_humidity": ("How humid is it in Kyoto?", {"city": "Kyoto"}),
    "kv_get": ("What value does the key 'timezone' hold?", {"key": "timezone"}),
    "kv_set": ("Save 'blue' under the key 'accent'.", {"key": "accent", "value": "blue"}),
    "kv_delete": ("Remove the key 'draft_id'.", {"key": "draft_id"}),
    "kv_list": ("Which stored keys start with 'ui_'?", {"prefix": "ui_"}),
    "list_events": ("What is on my calendar on 2031-02-14?", {"date": "2031-02-14"}),
    "create_event": ("Add 'Dentist' to my calendar on 2031-03-09 at 08:15.",
                     {"title": "Dentist", "date": "2031-03-09", "start": "08:15"}),
    "delete_event": ("Delete the calendar event with id 9001.", {"event_id": 9001}),
    "find_user": ("Who is the customer with the email zed@example.org?", {"email": "zed@example.org"}),
    "get_product": ("What does product Z-99 cost?", {"sku": "Z-99"}),
    "create_order": ("Order 7 of product Z-99 for customer 4242.", {"user_id": 4242, "sku": "Z-99", "quantity": 7}),
    "list_orders": ("Which orders has customer 4242 placed?", {"user_id": 4242}),
    "convert_units": ("How many feet are 12.25 km?", {"value": 12.25, "from_unit": "km", "to_unit": "ft"}),
    "convert_currency": ("What are 40 SEK in NOK?", {"amount": 40, "from_currency": "SEK", "to_currency": "NOK"}),
    "fetch_url": ("Open the intranet page http://intranet/faq.", {"url": "http://intranet/faq"}),
    "read_file": ("Show me the document reports/q9.txt.", {"path": "reports/q9.txt"}),
}


def example_for(tools: list[str]) -> tuple[str, dict[str, Any]] | None:
    """The first offered tool's example, as (request, call); None when no offered tool has one."""
    for name in tools:
        if name in EXAMPLES:
            request, arguments = EXAMPLES[name]
            return request, {"name": name, "arguments": arguments}
    return None
