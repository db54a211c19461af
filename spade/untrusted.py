"""One budget for untrusted text on the host: model completions, answers, proposer drafts and request fields.

In: any str from outside (it may hold lone surrogates, NULs, megabytes). Out: the same text bounded in UTF-8 bytes
with lone surrogates replaced by U+FFFD, so that every later parse, regex, sqlite insert or `.encode()` sees text
it can handle in time linear in the cap (`clip` keeps the head, `clip_ends` the head and the tail, where final
answers are); `excerpt` keeps a bounded head with a marker saying what was cut; `json_depth` measures bracket
nesting in one pass, before `json.loads` would recurse into it. `MAX_VALUE_DEPTH` is the one depth rule for values.
"""

from __future__ import annotations

import re
from typing import Any

MAX_COMPLETION_BYTES = 256 << 10  # a completion (~64k tokens); longer ones are cut, as a token limit would cut them
MAX_ANSWER_BYTES = 64 << 10  # an extracted answer or a parsed span of code; longer answers are a format failure
MAX_DRAFT_BYTES = 64 << 10  # a proposer's reply (spec or code mode)
MAX_FIELD_BYTES = 16 << 10  # a short field from outside: a model name, a task id
MAX_STORED_BYTES = 64 << 10  # a string written to the run database (a load error, a completion's copy)
MAX_JSON_DEPTH = 64  # brackets; json.loads recurses once per level
MAX_VALUE_DEPTH = 64  # container levels of one test value ([[1]] is two): the sandbox codec's limit (it is set from
# this constant) and all the host admits (task files, is_json, answers), so a value the host took always crosses it

_SURROGATE = re.compile("[\ud800-\udfff]")


def clean(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD: encodable as UTF-8 (sqlite, pipes, HTTP bodies)."""
    if text.isascii():
        return text
    return _SURROGATE.sub("\ufffd", text)


def is_text(text: str) -> bool:
    """Whether `text` holds no lone surrogate, i.e. is text UTF-8 can carry (a JSON `\\ud800` escape or a `chr`
    makes one after a decode): a value holding one is refused where it would be stored as a test value."""
    return text.isascii() or _SURROGATE.search(text) is None


def clean_value(value: Any) -> Any:
    """`value` (plain data: a row to export, a response) with every str in it, dict keys too, `clean`ed."""
    t = type(value)
    if t is str:
        return clean(value)
    if t is list or t is tuple:
        return [clean_value(v) for v in value]
    if t is dict:
        return {clean_value(k): clean_value(v) for k, v in value.items()}
    return value


def clip(text: str, limit: int) -> str:
    """At most `limit` UTF-8 bytes of `text` (cut at a character boundary), cleaned of lone surrogates."""
    if len(text) > limit:  # every character is at least one byte: cut the characters first, in O(limit)
        text = text[:limit]
    text = clean(text)
    if text.isascii():
        return text
    data = text.encode("utf-8")
    return text if len(data) <= limit else data[:limit].decode("utf-8", "ignore")


def clip_ends(text: str, limit: int) -> str:
    """At most about `limit` UTF-8 bytes of `text`: when over, its head and its tail (a completion's code comes
    first, a final answer last) around a line saying how many bytes were left out; cleaned of lone surrogates."""
    if not over(text, limit):
        return clean(text)
    half = max(0, limit // 2 - 32)
    head = clip(text, half)
    tail = clean(text[-half:]) if half else ""
    if not tail.isascii():
        data = tail.encode("utf-8")
        tail = data[len(data) - min(len(data), half):].decode("utf-8", "ignore")
    dropped = len(text.encode("utf-8", "surrogatepass")) - len(head.encode()) - len(tail.encode())
    return f"{head}\n…[{dropped} bytes left out]…\n{tail}"


def over(text: str, limit: int) -> bool:
    """Whether `text` is longer than `limit` UTF-8 bytes (lone surrogates counted as three bytes)."""
    return len(text) > limit or (not text.isascii() and len(text.encode("utf-8", "surrogatepass")) > limit)


def excerpt(text: str, limit: int = MAX_STORED_BYTES) -> str:
    """`text` cleaned, and when over `limit` bytes its head with "…[truncated N bytes]" (N: the bytes left out)."""
    if not over(text, limit):
        return clean(text)
    size = len(text.encode("utf-8", "surrogatepass"))
    head = clip(text, max(0, limit - 40))
    return f"{head}…[truncated {size - len(head.encode('utf-8'))} bytes]"


def json_depth(text: str, stop: int = MAX_JSON_DEPTH) -> int:
    """The deepest nesting of [ and { outside JSON strings, in one pass; counting stops once it exceeds `stop`."""
    depth = deepest = 0
    in_string = escaped = False
    for c in text:
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > stop:
                    return deepest
        elif c in "]}":
            depth -= 1
    return deepest
