"""Degenerate proposer answers are rejections with a reason, in bounded host time: JSON nested past what
`json.loads` can recurse through, a reference whose expression overflows Python's parser, thousands of lines that
never parse, and answers of megabytes. A good answer beside them is still drafted."""

from __future__ import annotations

import json
import time

from spade.config import GenerationConfig
from spade.generate.proposer import LLMProposer, Proposal, Rejection, parse_answer
from spade.serving.client import ChatClient
from spade.untrusted import MAX_DRAFT_BYTES
from tests.serving.helpers import ScriptedServer, chat_body

GOOD = {"description": "Square a number.", "signature": "def square(x: int) -> int:",
        "reference": "def square(x: int) -> int:\n    return x * x\n", "inputs": [[2], [3]], "expected": [4, 9]}
DEEP_ARRAY = "[" * 1200 + "]" * 1200
DEEP_INPUTS = json.dumps({**GOOD, "inputs": [[2], "@"]}).replace('"@"', "[" * 1200 + "]" * 1200)
LONG_SUM = json.dumps({**GOOD, "reference": "def square(x: int) -> int:\n    return x" + "+0" * 3000 + "\n"})


def test_spec_answers_nested_too_deeply_are_rejections_and_the_good_one_is_drafted(store_examples):
    cfg = GenerationConfig(proposer="llm", proposer_mode="spec")
    answers = [DEEP_ARRAY, DEEP_INPUTS, LONG_SUM, json.dumps(GOOD)]
    with ScriptedServer([(200, chat_body(a)) for a in answers]) as server:
        batch = LLMProposer(cfg, ChatClient(server.base_url, concurrency=1)).propose(4, 0.5, store_examples)
    assert batch.stats.answered == 4 and batch.stats.drafted == 1
    assert batch.stats.rejected == {"not_json": 2, "syntax_error": 1}


def test_each_degenerate_answer_is_parsed_within_a_bounded_time() -> None:
    cases = {
        DEEP_ARRAY: "not_json",
        "{" * 60_000: "not_json",
        LONG_SUM: "syntax_error",
        "```python\n" + "@x\n" * 20_000 + "def f(x):\n    '''Double.'''\n    return 2 * x\n```": None,
        "```python\n" + "x=(\n" * 15_000 + "```": None,
        "\n" * 60_000 + "def": None,
        "x" * (MAX_DRAFT_BYTES + 1): "too_long",
    }
    for text, reason in cases.items():
        for mode in ("spec", "code_first"):
            started = time.process_time()
            result = parse_answer(text, mode)
            assert time.process_time() - started < 2.0, (text[:20], mode)
            assert isinstance(result, Rejection)
            if reason is not None and (mode == "spec" or reason == "too_long"):
                assert result.reason == reason, (text[:20], mode, result)


def test_a_good_answer_with_a_lone_surrogate_in_its_description_is_still_read() -> None:
    result = parse_answer(json.dumps({**GOOD, "description": "Square a number \ud800."}), "spec")
    assert isinstance(result, Proposal) and result.description == "Square a number \ufffd."
