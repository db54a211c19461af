"""Strict, type-exact value codec between the candidate's process and the supervisor.

in: a Python value built from None, bool, int, float, str, list, tuple, dict, set, frozenset, bytes
(exact types, `type(x) is int`, never `isinstance`: a subclass may lie about `__eq__`). A subclass of list, tuple,
dict, set or frozenset (collections.Counter, defaultdict, OrderedDict, a namedtuple) is encoded as the plain
container its builtin storage holds, read through the builtin type's own methods, never the subclass's: what is
compared is that storage, whatever the subclass claims (so Counter({'a': 2}) equals {'a': 2}, as `==` says in
Python, and a subclass whose __eq__ returns True is judged by its contents). Other subclasses (of str, int...) and
other types, deque included (a deque never equals a list in Python either), are refused.
out: JSON text whose containers are tagged arrays (["L", ...] list, ["T", ...] tuple, ["D", k, v, ...] dict,
["S", ...] set, ["F", ...] frozenset, ["B", hex] bytes); `decode` rebuilds plain builtins only.
This file runs inside the sandbox and must import nothing outside the standard library.
"""

from __future__ import annotations

import _json
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_DEPTH: int
"""Container levels one value may nest: a test's argument, an expected or a returned value (`[[1]]` is two). Not
spelled here: the host's one depth rule, spade.untrusted.MAX_VALUE_DEPTH, is set by `configure` (on the host by
spade.sandbox.worker, inside by the zygote from its settings), so what the host admits always crosses."""
MAX_ITEMS = 200_000
MAX_CHARS = 4_000_000
MAX_INT_DIGITS = 4300
"""Decimal digits of one decoded int (Python's own default int/str limit)."""
MAX_SAME_HASH = 8
"""Set elements or dict keys of one decoded container that may share a hash value (a forged frame of ints
k·(2**61 - 1) all hash alike and would make building the set quadratic)."""


def configure(max_depth: int) -> None:
    """Set MAX_DEPTH, before any value is encoded or decoded."""
    global MAX_DEPTH
    MAX_DEPTH = max_depth


class Unencodable(Exception):
    """The value has a type, depth or size the codec refuses."""


# Bound at import time, before any candidate code runs, so patched builtins cannot change the encoder.
_type, _len, _repr, _str, _hex = type, len, float.__repr__, str, bytes.hex
_NONE, _BOOL, _INT, _FLOAT, _STR = type(None), bool, int, float, str
_LIST, _TUPLE, _DICT, _SET, _FROZEN, _BYTES = list, tuple, dict, set, frozenset, bytes
_TAGS = {_LIST: "L", _TUPLE: "T", _SET: "S", _FROZEN: "F"}
# The builtin containers' own readers: a subclass cannot override these (builtin types are immutable).
_STORAGE = ((_DICT, _DICT.items), (_LIST, _LIST.__iter__), (_TUPLE, _TUPLE.__iter__), (_SET, _SET.__iter__),
            (_FROZEN, _FROZEN.__iter__))
_issubclass = issubclass
_SCALARS = frozenset((_NONE, _BOOL, _INT, _FLOAT, _STR))  # exact types: a subclass is never in this set
_NODES = frozenset((_LIST, _DICT))  # what a decoded JSON tree holds besides scalars
# The C halves of the json package, used directly: importing json pulls in re, enum and more, which would
# inflate the zygote (more memory to copy-on-write in every fork). Built once: json.dumps builds a fresh encoder
# per call, most of the cost for a small value. No circular-reference markers: _tree's output is a fresh,
# acyclic, depth-limited tree (and control messages are plain dicts built by our own code).
_c_encode = _json.make_encoder(None, None, _json.encode_basestring, None, ":", ",", False, False, True)
_c_encode_ascii = _json.make_encoder(None, None, _json.encode_basestring_ascii, None, ":", ",", False, False, True)
_join = "".join
_get_int_digits = getattr(sys, "get_int_max_str_digits", lambda: 0)  # absent before 3.11: 0, as if unlimited
_INF = float("inf")
_CONSTANTS = {"-Infinity": -_INF, "Infinity": _INF, "NaN": _INF - _INF}


class _ScanContext:
    """What the C scanner reads from a json.JSONDecoder: the defaults, spelled out."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__


_scan = _json.make_scanner(_ScanContext())


def plain_dumps(obj: Any) -> str:
    """Compact ASCII JSON of plain data built by our own code (control messages): json.dumps without json."""
    return _join(_c_encode_ascii(obj, 0))


def plain_loads(text: str) -> Any:
    """Parse compact JSON text (no surrounding whitespace) as json.loads would; ValueError when malformed."""
    return _whole(_scan, text)


def _whole(scan: Any, text: str) -> Any:
    """One JSON value spanning all of `text`, read with `scan`; ValueError when malformed."""
    try:
        value, end = scan(text, 0)
    except StopIteration as exc:
        raise ValueError(f"expecting a JSON value at char {exc.value}") from None
    if end != _len(text):
        raise ValueError(f"extra data at char {end}")
    return value


def encode(value: Any) -> str:
    """Encode `value` or raise Unencodable naming the offending type or limit."""
    return _encode(value, 0)


def encode_args(args: tuple[Any, ...]) -> str:
    """Encode one call's arguments (a tuple): each argument may nest MAX_DEPTH levels, the tuple around them aside."""
    return _encode(args, -1)


def _encode(value: Any, depth: int) -> str:
    budget = [MAX_ITEMS]
    tree = _tree(value, depth, budget)
    try:
        text = _dumps_tree(tree)
    except (ValueError, RecursionError) as exc:  # huge ints past the str-conversion limit
        raise Unencodable(f"cannot serialise: {exc}") from None
    if _len(text) > MAX_CHARS:
        raise Unencodable(f"encoded value is {_len(text)} chars, over the {MAX_CHARS} limit")
    return text


def _dumps_tree(tree: Any) -> str:
    """Compact JSON of a tree from _tree, as json.dumps(tree, separators=(",", ":"), ensure_ascii=False) gives."""
    return _join(_c_encode(tree, 0))


def _tree(v: Any, depth: int, budget: list[int]) -> Any:
    """`v`, `depth` containers down, as a tagged tree; a container at depth MAX_DEPTH would be one level too many."""
    budget[0] -= 1
    if budget[0] < 0:
        raise Unencodable(f"more than {MAX_ITEMS} items")
    t = _type(v)
    if t is _NONE or t is _BOOL or t is _STR:
        return v
    if t is _INT:
        return v
    if t is _FLOAT:
        return v
    if t is _BYTES:
        return ["B", _hex(v)]
    if depth >= MAX_DEPTH:
        raise Unencodable(f"nested more than {MAX_DEPTH} levels deep")
    tag = _TAGS.get(t)
    if tag is not None:
        if _SCALARS.issuperset(map(_type, v)):  # flat (the common case): no call per item
            budget[0] -= _len(v)
            if budget[0] < 0:
                raise Unencodable(f"more than {MAX_ITEMS} items")
            return [tag, *v]
        return [tag, *[_tree(x, depth + 1, budget) for x in v]]
    if t is _DICT:
        return _dict_tree(v.items(), depth, budget)
    return _subclass_tree(v, t, depth, budget)


def _dict_tree(items: Any, depth: int, budget: list[int]) -> list[Any]:
    out: list[Any] = ["D"]
    for k, x in items:
        out.append(_tree(k, depth + 1, budget))
        out.append(_tree(x, depth + 1, budget))
    return out


def _subclass_tree(v: Any, t: type, depth: int, budget: list[int]) -> Any:
    """A container subclass as the plain container its storage holds; anything else refused."""
    for base, read in _STORAGE:
        if _issubclass(t, base):
            try:
                if base is _DICT:
                    return _dict_tree(read(v), depth, budget)
                return [_TAGS[base], *[_tree(x, depth + 1, budget) for x in read(v)]]
            except RuntimeError as exc:  # changed size while read (by a __hash__ or __eq__ of its own)
                raise Unencodable(f"cannot read {t.__qualname__}: {_str(exc)[:100]}") from None
    raise Unencodable(f"type {t.__module__}.{t.__qualname__} is not a plain builtin value")


def decode(text: str) -> Any:
    """Rebuild plain builtins from `encode`'s text; raise Unencodable on anything malformed or over a limit.

    The text may be forged (a candidate can write its own frames), so nothing here trusts encode's limits: the
    text, the items, the depth and each int's digits are bounded, and no set or dict is built from elements that
    share one hash value too often (equal hashes make building it quadratic). Every step is linear in the text.
    """
    if _len(text) > MAX_CHARS:
        raise Unencodable(f"encoded value is {_len(text)} chars, over the {MAX_CHARS} limit")
    try:
        tree = _bounded_loads(text)
        return _value(tree, 0, [MAX_ITEMS])
    except (ValueError, TypeError, RecursionError, KeyError, IndexError, MemoryError) as exc:
        raise Unencodable(f"malformed encoding: {_str(exc)[:200]}") from None


def _bounded_int(digits: str) -> int:
    if _len(digits) > MAX_INT_DIGITS + 1:  # + 1: the sign
        raise ValueError(f"an int of more than {MAX_INT_DIGITS} digits")
    return _INT(digits)


class _BoundedContext(_ScanContext):
    parse_int = staticmethod(_bounded_int)


_bounded_scan = _json.make_scanner(_BoundedContext())


def _bounded_loads(text: str) -> Any:
    # The C scanner's fast int path is bounded by the interpreter's own int/str limit (4300 digits by default);
    # only where that limit was raised or lifted does each int go through a call that checks its length.
    limit = _get_int_digits()
    return _whole(_scan if 0 < limit <= MAX_INT_DIGITS else _bounded_scan, text)


def _value(node: Any, depth: int, budget: list[int]) -> Any:
    if depth > MAX_DEPTH + 1:
        raise Unencodable(f"nested deeper than {MAX_DEPTH}")
    t = _type(node)
    if t is not _LIST:
        if t is _DICT:
            raise Unencodable("bare JSON object in encoding")
        return node
    budget[0] -= _len(node)
    if budget[0] < 0:
        raise Unencodable(f"more than {MAX_ITEMS} items")
    tag, items = node[0], node[1:]
    if _type(tag) is not _STR:
        raise Unencodable(f"container tag of type {_type(tag).__name__}")
    if tag == "B":
        return bytes.fromhex(items[0])
    # Flat (the common case): JSON scalars are already the values; no call per item.
    values = items if _NODES.isdisjoint(map(_type, items)) else [_value(x, depth + 1, budget) for x in items]
    if tag == "L":
        return values
    if tag == "T":
        return tuple(values)
    if tag == "S":
        return set(_spread(values))
    if tag == "F":
        return frozenset(_spread(values))
    if tag == "D":
        if _len(values) % 2:
            raise Unencodable("dict encoding has an odd number of items")
        keys = values[0::2]
        return dict(zip(_spread(keys), values[1::2]))
    raise Unencodable(f"unknown tag {tag[:20]!r}")


def _spread(elements: list[Any]) -> list[Any]:
    """`elements`, once no hash value is shared by more than MAX_SAME_HASH of them.

    Sorting the hashes costs O(n log n) whatever they are; a set or dict built from n elements of one hash costs
    O(n²). Elements with distinct hashes probe apart within a few steps (CPython perturbs the probe sequence with
    every bit of the hash), so this bound keeps building the container linear. Unhashable elements raise TypeError.
    """
    if _len(elements) <= MAX_SAME_HASH:
        return elements
    hashes = sorted(map(hash, elements))
    if any(map(_INT.__eq__, hashes[MAX_SAME_HASH:], hashes)):  # sorted: a run longer than the bound
        raise Unencodable(f"more than {MAX_SAME_HASH} set elements or dict keys share one hash value")
    return elements
