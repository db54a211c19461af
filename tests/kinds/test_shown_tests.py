"""What a trainer is handed of a task (spade.kinds.shown_tests, behind /v1/env/draw and `Drawn.shown`) holds no
answer: for every registered kind, a public test's expected value is shown only where that kind's own prompt shows
it, and code reasoning shows a deduction's input and an abduction's output, never the other half."""

from __future__ import annotations

import pytest

from spade.kinds import KINDS, kind_of, shown_tests
from spade.records import Task, TestCase

SECRET = "SECRET-4242"


def _task(kind: str, params: dict | None = None) -> Task:
    return Task(f"t-{kind}", "Describe it.", "def f(x: str) -> str:", "f", 0.3, test_cases=(TestCase(("in-1",), SECRET),),
                hidden_test_cases=(TestCase(("in-2",), "HIDDEN-1"),), reference_solution="def f(x):\n    return x\n",
                params=params or {}, kind=kind)


@pytest.mark.parametrize("name", sorted(KINDS.names()))
def test_every_kind_shows_an_expected_value_only_where_its_prompt_does(name: str) -> None:
    modes = ("deduction", "abduction", "induction") if name == "code_reasoning" else (None,)
    for mode in modes:
        task = _task(name, {"mode": mode} if mode else None)
        shown = shown_tests(task)
        assert "HIDDEN-1" not in repr(shown) and "in-2" not in repr(shown)
        if any("expected" in t for t in shown):
            prompt = kind_of(task).prompt(task, 0)
            text = "\n".join(m["content"] for m in prompt.messages) + prompt.prefill
            assert SECRET in text, f"{name} {mode}: shows an expected value its prompt does not"


def test_code_reasoning_shows_the_query_never_its_answer() -> None:
    assert shown_tests(_task("code_reasoning", {"mode": "deduction"})) == [{"input": ["in-1"]}]
    assert shown_tests(_task("code_reasoning", {"mode": "abduction"})) == [{"expected": SECRET}]
    assert shown_tests(_task("code_reasoning", {"mode": "induction"})) == [{"input": ["in-1"], "expected": SECRET}]
    assert shown_tests(_task("python_function")) == [{"input": ["in-1"], "expected": SECRET}]
