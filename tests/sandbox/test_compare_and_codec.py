"""The supervisor's comparison rules and the strict codec, without a sandbox."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spade.sandbox import values_equal
from spade.sandbox.inside import codec


@pytest.mark.parametrize(("got", "expected", "equal"), [
    (True, 1, False), (1, True, False), (1, 1, True), (2.0, 2, False), (2, 2.0, True),
    (0.1 + 0.2, 0.3, True), (1.0 + 1e-5, 1.0, False), (1e-10, 0.0, True), (True, 1.0, False),
    (float("nan"), float("nan"), True), (1.0, float("nan"), False), (float("inf"), float("inf"), True),
    (float("-inf"), float("inf"), False), ("1", 1, False), ("ab", ["a", "b"], False), ((1, 2), [1, 2], True),
    ([1, [2, 3]], [1, (2, 3)], True), ([1, 2], [1, 2, 3], False), ({"a": 1}, {"a": 1}, True),
    ({"a": True}, {"a": 1}, False), ({1: "x"}, {True: "x"}, False), ({1, 2}, {1, 2}, True),
    ({1}, {True}, False), (frozenset({1}), {1}, True), (None, None, True), (0, None, False), (b"x", b"x", True),
])
def test_values_equal_follows_the_documented_rules(got, expected, equal):
    assert values_equal(got, expected) is equal


def test_codec_refuses_subclasses_of_builtins():
    from collections import deque

    class S(str):
        pass

    class I(int):  # noqa: E742
        pass

    for value in (S("x"), I(1), [I(1)], {"k": S("v")}, object(), (x for x in ()), deque([1]), [[deque()]]):
        with pytest.raises(codec.Unencodable):
            codec.encode(value)


def test_codec_reads_a_container_subclass_through_the_builtin_storage_not_its_methods():
    from collections import Counter, OrderedDict, defaultdict, namedtuple

    class Liar(list):
        def __iter__(self):
            return iter(["forged"])

        def __eq__(self, other):
            return True

    class Items(dict):
        def items(self):
            return [("forged", 1)]

    counts = defaultdict(int, {"a": 2})
    point = namedtuple("point", "x y")(1, Counter("bb"))
    cases = [(Counter("aab"), {"a": 2, "b": 1}), (counts, {"a": 2}), (OrderedDict(b=1, a=2), {"b": 1, "a": 2}),
             (point, (1, {"b": 2})), (Liar([1]), [1]), (Items(a=1), {"a": 1})]
    for value, plain in cases:
        back = codec.decode(codec.encode(value))
        assert back == plain and type(back) is type(plain), (value, back)


def test_codec_refuses_deep_and_huge_values():
    deep: list = []
    for _ in range(codec.MAX_DEPTH + 5):
        deep = [deep]
    with pytest.raises(codec.Unencodable):
        codec.encode(deep)
    with pytest.raises(codec.Unencodable):
        codec.encode(list(range(codec.MAX_ITEMS + 1)))


def test_decode_refuses_malformed_text():
    for text in ('{"a": 1}', '["Q", 1]', '["D", 1]', "[", '["S", ["L"]]'):
        with pytest.raises(codec.Unencodable):
            codec.decode(text)


plain = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text() | st.binary(),
    lambda inner: st.lists(inner) | st.tuples(inner, inner) | st.dictionaries(st.text() | st.integers(), inner)
    | st.frozensets(st.integers() | st.text()),
    max_leaves=20,
)


@given(plain)
def test_codec_round_trips_plain_values_exactly(value):
    back = codec.decode(codec.encode(value))
    assert back == value and _types(back) == _types(value)


def _types(v):
    if type(v) in (list, tuple):
        return (type(v), [_types(x) for x in v])
    if type(v) is dict:
        return (dict, sorted(repr(_types(k)) + repr(_types(x)) for k, x in v.items()))
    if type(v) is float and math.isnan(v):
        return "nan"
    return type(v)


control = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
    max_leaves=20,
)


@given(control)
def test_control_messages_read_back_as_the_json_package_reads_them(value):
    import json

    text = codec.plain_dumps(value)
    assert text.isascii()  # lone surrogates are escaped, so the text always encodes to UTF-8
    assert _types(codec.plain_loads(text)) == _types(json.loads(text))
    assert _types(codec.plain_loads(json.dumps(value))) == _types(value)  # the host's spaced separators too


@pytest.mark.parametrize("text", ["", " 1", "[1] x", "[1", "{'a': 1}", "nul"])
def test_control_message_parser_refuses_malformed_text(text):
    with pytest.raises(ValueError):
        codec.plain_loads(text)
