"""One depth rule: the host admits exactly the nesting the sandbox codec carries (spade.untrusted.MAX_VALUE_DEPTH,
for each argument and each returned value), and arguments the codec refuses are the job's verdict, never an
exception out of the pool. Real sandbox."""

from __future__ import annotations

from spade.sandbox import Job, OutcomeKind
from spade.sandbox.inside import codec
from spade.untrusted import MAX_VALUE_DEPTH
from spade.validate.types import is_json

from .conftest import CFG

IDENTITY = "def f(x):\n    return x\n"
BUILD = "def f(n):\n    v = 3\n    for _ in range(n):\n        v = [v]\n    return v\n"


def deep(levels: int, inner: object = 3) -> object:
    value = inner
    for _ in range(levels):
        value = [value]
    return value


def _job(code: str, *inputs: tuple) -> Job:
    return Job(code, "f", inputs, (2.0,) * len(inputs), CFG.memory_bytes, total_timeout=6.0)


def test_the_host_and_the_codec_share_one_depth():
    assert codec.MAX_DEPTH == MAX_VALUE_DEPTH
    assert is_json(deep(MAX_VALUE_DEPTH)) and is_json(deep(MAX_VALUE_DEPTH - 2, {"k": []}))
    assert not is_json(deep(MAX_VALUE_DEPTH + 1)) and not is_json(deep(MAX_VALUE_DEPTH - 1, {"k": []}))
    assert not is_json(deep(MAX_VALUE_DEPTH, []))  # an empty list is a level too
    assert codec.decode(codec.encode(deep(MAX_VALUE_DEPTH))) == deep(MAX_VALUE_DEPTH)
    assert codec.decode(codec.encode_args((deep(MAX_VALUE_DEPTH),))) == (deep(MAX_VALUE_DEPTH),)
    for value in (deep(MAX_VALUE_DEPTH + 1), deep(MAX_VALUE_DEPTH, [])):
        try:
            codec.encode(value)
        except codec.Unencodable:
            continue
        raise AssertionError("the codec carried a value nested deeper than the host admits")


def test_the_deepest_admitted_value_crosses_both_ways(pool):
    run = pool.run(_job(IDENTITY, (deep(MAX_VALUE_DEPTH),)))
    assert run.outcomes[0].kind is OutcomeKind.VALUE and run.outcomes[0].value == deep(MAX_VALUE_DEPTH)
    built = pool.run(_job(BUILD, (MAX_VALUE_DEPTH,), (MAX_VALUE_DEPTH + 1,)))
    assert [o.kind for o in built.outcomes] == [OutcomeKind.VALUE, OutcomeKind.UNENCODABLE]


def test_arguments_the_codec_refuses_are_a_verdict_not_an_exception(pool):
    run = pool.run(_job(IDENTITY, (1,), (deep(MAX_VALUE_DEPTH + 1),)))  # the abduction repro's argument
    assert [o.kind for o in run.outcomes] == [OutcomeKind.UNENCODABLE] * 2
    assert "test 1's arguments" in run.outcomes[0].error and f"{MAX_VALUE_DEPTH} levels" in run.outcomes[0].error
    assert pool.run(_job(IDENTITY, (1,))).outcomes[0].value == 1  # the pool is unharmed
