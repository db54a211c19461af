"""One budget for untrusted text on the host: the caps themselves, and a property over every extractor and parser
that reads a model's or a proposer's text on the host. Generated degenerate text (deep nesting, thousands of
`@x` or `x=(` lines, long operator chains, lone surrogates, NULs, huge lines, fences by the thousand) gives each a
result (an answer, '' or a rejection) within 2 s of CPU per call, never an exception."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from functools import cache

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from spade.audit import screen_code
from spade.dedup.normalize import canonical_code, exact_key, shingles
from spade.evaluate.suites import load_suite
from spade.generate.proposer import parse_answer
from spade.kinds import kind_of
from spade.kinds.math.grammar import Form, Refused
from spade.kinds.math.grammar import parse_answer as parse_math
from spade.pycode import parse_untrusted
from spade.selfplay.proposal import parse_proposal
from spade.untrusted import MAX_JSON_DEPTH, clean, clip, clip_ends, excerpt, json_depth, over

CPU_S = 2.0

# -- the caps --------------------------------------------------------------------------------------------------


def test_clip_keeps_at_most_the_byte_cap_at_a_character_boundary_and_replaces_lone_surrogates() -> None:
    assert clip("é" * 10, 5) == "éé"
    assert clip("ab\ud800cd", 100) == "ab\ufffdcd"
    assert clip("x" * 10, 3) == "xxx"
    assert clip("日本\udfff", 7) == "日本"


def test_excerpt_says_how_many_bytes_it_left_out() -> None:
    text = excerpt("a" * 10_000, 1000)
    assert len(text.encode()) <= 1000 and text.endswith(f"…[truncated {10_000 - 960} bytes]")
    assert excerpt("short \ud800") == "short \ufffd"


def test_clip_ends_keeps_the_head_and_the_tail_and_says_what_it_left_out() -> None:
    text = clip_ends("def f(): pass\n" + "x" * 1_000_000 + "\nAnswer: 42", 1000)
    assert len(text.encode()) <= 1000 + 40
    assert text.startswith("def f(): pass\n") and text.endswith("\nAnswer: 42") and "bytes left out]" in text
    assert clip_ends("short \ud800", 1000) == "short \ufffd"


def test_over_counts_bytes_not_characters() -> None:
    assert over("é" * 6, 10) and not over("é" * 5, 10) and not over("", 0)


def test_json_depth_counts_brackets_outside_strings_only() -> None:
    assert json_depth('{"a": [1, {"b": "[[[[["}]}') == 3
    assert json_depth('"\\"[[["') == 0
    assert json_depth("[" * 10_000) == MAX_JSON_DEPTH + 1  # stops counting past the cap


def test_clean_leaves_ordinary_text_alone() -> None:
    text = "def f():\n    return '日本'\n"
    assert clean(text) is text


# -- every extractor and parser on degenerate text -------------------------------------------------------------

PIECES = ["@x\n", "x=(\n", "(", ")", "[", "]", "{", "}", "+0", "```", "```python\n", "```json\n", "```sql\n",
          "def f(x):\n", "    return x\n", "\\boxed{", "Answer: ", "answer is ", "SELECT ", "/**/", "/*", "'", '"',
          "\\", "\n", " ", "\t", "\ud800", "\udfff", "\x00", "=", "1", "x", ">>> ", ":", "import os\n", "-- ",
          "not ", "lambda: ", "**", "\r\n", "é", "f(", "print(", "    ", "\\frac{", "^", "sqrt(", "yes, "]

# One degenerate text: a few pieces, each repeated up to thousands of times, with some free text between them.
DEGENERATE = st.lists(
    st.tuples(st.sampled_from(PIECES), st.integers(1, 1500)) | st.tuples(st.text(max_size=40), st.just(1)),
    min_size=1, max_size=4,
).map(lambda parts: "".join(piece * n for piece, n in parts))


@cache
def _tasks() -> tuple:
    """One task of every kind (two forms of math, both structured formats), from the shipped suites."""
    from spade.kinds.code_reasoning.proposer_role import proposer_task

    suites = ["builtin", "heldout-math-dev", "heldout-program-dev", "heldout-repair-dev", "heldout-sql-dev",
              "heldout-structured-dev", "heldout-tool_call-dev", "heldout-code_reasoning-dev"]
    picked = {}
    for name in suites:
        for task in load_suite(name):
            form = (task.signature if task.kind == "math" else task.entry_point if task.kind == "structured"
                    else task.params.get("mode", "") if task.kind == "code_reasoning" else "")
            picked.setdefault((task.kind, form), task)
    proposer = proposer_task("proposer/0", 0.3, (), "deduction")
    return (*picked.values(), proposer)


def _readers() -> list[tuple[str, Callable[[str], object]]]:
    readers: list[tuple[str, Callable[[str], object]]] = []
    for task in _tasks():
        kind = kind_of(task)
        for prefilled in (True, False):
            readers.append((f"{task.kind} extract {task.task_id} prefilled={prefilled}",
                            lambda text, k=kind, t=task, p=prefilled: k.screen(k.extract(t, text, prefilled=p))))
        readers.append((f"{task.kind} screen", lambda text, k=kind: k.screen(text)))
    readers += [
        ("proposer spec", lambda text: parse_answer(text, "spec")),
        ("self-play proposal", parse_proposal),
        ("proposer code_first", lambda text: parse_answer(text, "code_first")),
        ("screen_code", screen_code),
        ("canonical_code", canonical_code),
        ("exact_key", lambda text: exact_key(text, text)),
        ("shingles", lambda text: shingles(text, text)),
        ("parse_untrusted", _parse_or_syntax_error),
        ("math grammar", _math_or_refused),
        ("json depth", json_depth),
    ]
    return readers


def _parse_or_syntax_error(text: str) -> object:
    try:
        return parse_untrusted(clip(text, 64 << 10))
    except SyntaxError:
        return None


def _math_or_refused(text: str) -> object:
    try:
        return parse_math(text, Form("polynomial", ("x",)))
    except Refused:
        return None


HEAVY = [
    "@x\n" * 20_000,
    "```python\n" + "x=(\n" * 20_000,
    "def f(n):\n    return n" + "+0" * 5000 + "\n",
    "[" * 100_000 + "]" * 100_000,
    "{" * 60_000,
    "```sql\n" + "/**/" * 30 + "x\n```",
    "```\n" + "/**/" * 30 + "x\n```",
    "Answer: " + " " * 4000 + "x\n" + ("answer:" + " " * 3990 + "x\n") * 60,
    "\\boxed{" * 50_000,
    "x" * 2_000_000,
    "\ud800\x00" * 50_000,
    "```" * 50_000,
    "\n" * 200_000 + "def f(): pass",
    "print(" * 30_000,
    "def f():\n    return " + "(" * 5000 + ")" * 5000,
]


def _each_reader_within_bounds(text: str) -> None:
    for name, read in _readers():
        started = time.process_time()
        try:
            read(text)
        except Exception as exc:  # noqa: BLE001 - the property is that nothing escapes
            pytest.fail(f"{name} raised {type(exc).__name__}: {str(exc)[:200]} on {text[:60]!r}")
        spent = time.process_time() - started
        assert spent <= CPU_S, f"{name} took {spent:.2f} s of CPU on {text[:60]!r} ({len(text)} chars)"


@settings(max_examples=15, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(DEGENERATE)
@example("@x\n" * 400)
@example("```python\n" + "x=(\n" * 700)
@example("def f(n):\n    return n" + "+0" * 3000 + "\n")
@example("[" * 1200 + "]" * 1200)
@example("```\n" + "/**/" * 30 + "x\n```")
@example("a\ud800b\x00c")
def test_every_reader_of_untrusted_text_answers_in_bounded_time_without_raising(text: str) -> None:
    _each_reader_within_bounds(text)


@pytest.mark.parametrize("index", range(len(HEAVY)))
def test_every_reader_stays_within_bounds_on_the_largest_degenerate_texts(index: int) -> None:
    _each_reader_within_bounds(HEAVY[index])


def test_the_readers_cover_every_kind() -> None:
    from spade.kinds import KINDS

    shipped = {name for name in KINDS.names() if type(KINDS.get(name)).__module__.startswith("spade.")}  # not tests'
    assert {t.kind for t in _tasks()} == shipped
    assert json.loads(json.dumps(sorted({t.kind for t in _tasks()})))
