"""OpenAIPolicy: the embedded policy's sampling interface over HTTP (scripted server here, real one when slow)."""

from __future__ import annotations

import pytest

from spade.config import SamplingConfig
from spade.errors import ModelError
from spade.kinds.python_function.extract import extract_code
from spade.policy.openai_backend import OpenAIPolicy
from spade.policy.prompts import PROMPT_VARIANTS
from spade.records import Task, TestCase
from spade.serving.client import ChatClient
from tests.serving.helpers import ScriptedServer, chat_body

TASKS = [
    Task("add", "Return the sum of two integers.", "def add(a: int, b: int) -> int:", "add", 0.1,
         test_cases=(TestCase((1, 2), 3),)),
    Task("neg", "Return the negation of an integer.", "def neg(x: int) -> int:", "neg", 0.1,
         test_cases=(TestCase((4,), -4),)),
]
ANSWER = "Sure.\n```python\ndef add(a, b):\n    return a + b\n```\nHope it helps."


def _policy(server: ScriptedServer, **cfg: object) -> OpenAIPolicy:
    sampling = SamplingConfig(backend="openai", base_url=server.base_url, **cfg)
    return OpenAIPolicy(sampling, ChatClient.from_sampling(sampling))


def test_sample_returns_n_completions_per_task_with_tokens_counted():
    code = "```python\ndef add(a, b):\n    return a + b\n```"
    with ScriptedServer([(200, chat_body(code, completion_tokens=12))]) as s:
        policy = _policy(s)
        rows = policy.sample(TASKS, 5, seed=3)
    assert [len(r) for r in rows] == [5, 5]
    assert all(c.new_tokens == 12 for r in rows for c in r)
    assert policy.last_tokens_per_s > 0 and policy.total_new_tokens == 120
    assert policy.name == "openai:scripted"
    # One request per prompt variant and task, its samples topped up singly when the server ignores n.
    assert len(s.requests) == 10
    assert {c.prompt_variant for c in rows[0]} == set(range(PROMPT_VARIANTS))


def test_a_leading_fence_is_removed_so_the_default_extractor_reads_it():
    with ScriptedServer([(200, chat_body("```python\ndef add(a, b):\n    return a + b\n```\nDone."))]) as s:
        text = _policy(s).sample(TASKS[:1], 1)[0][0].text
    assert text.startswith("def add")
    assert extract_code(text, "add") == "def add(a, b):\n    return a + b\n"


def test_prose_before_the_code_still_extracts():
    with ScriptedServer([(200, chat_body(ANSWER))]) as s:
        text = _policy(s).sample(TASKS[:1], 1)[0][0].text
    assert extract_code(text, "add") == "def add(a, b):\n    return a + b\n"


def test_sampling_options_and_seeds_reach_the_server():
    with ScriptedServer([(200, chat_body("x"))]) as s:
        _policy(s, max_new_tokens=64, top_p=0.9).sample(TASKS[:1], 1, temperature=0.0, seed=11)
        _policy(s, max_new_tokens=64, top_p=0.9).sample(TASKS[:1], 1, temperature=0.0, seed=11)
    first, again = s.requests
    assert first["temperature"] == 0.0 and first["max_tokens"] == 64 and first["top_p"] == 0.9
    assert first["seed"] == again["seed"] and "prefill" not in first


def test_progress_is_reported_up_to_the_total():
    seen: list[tuple[int, int]] = []
    with ScriptedServer([(200, chat_body("x"))]) as s:
        _policy(s, concurrency=2).sample(TASKS, 3, on_progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (6, 6) and len(seen) == 3


def test_n_below_one_is_refused():
    with ScriptedServer([(200, chat_body("x"))]) as s, pytest.raises(ModelError, match="n = 0"):
        _policy(s).sample(TASKS, 0)
