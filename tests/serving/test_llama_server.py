"""Against a real llama.cpp server on 127.0.0.1 serving the embedded GGUF (skipped without llama-cpp-python)."""

from __future__ import annotations

import os
import urllib.error
import urllib.request

import pytest

from spade.config import SamplingConfig
from spade.errors import ModelError
from spade.policy.openai_backend import OpenAIPolicy
from spade.records import Task, TestCase
from spade.serving.client import ChatClient, ChatRequest
from tests.serving.helpers import report

TASKS = [
    Task("add", "Return the sum of two integers.", "def add(a: int, b: int) -> int:", "add", 0.1,
         test_cases=(TestCase((1, 2), 3),)),
    Task("rev", "Return the string reversed.", "def rev(s: str) -> str:", "rev", 0.1,
         test_cases=(TestCase(("abc",), "cba"),)),
]


def test_repacking_is_off_in_every_model_the_wrapper_loads():
    lib = pytest.importorskip("llama_cpp.llama_cpp")
    from spade.serving.llama_server import disable_weight_repacking

    disable_weight_repacking()
    disable_weight_repacking()  # idempotent: wraps the original once
    assert lib.llama_model_default_params().use_extra_bufts is False


def test_a_missing_model_file_is_a_model_error(tmp_path):
    from spade.serving.llama_server import LocalLlamaServer

    with pytest.raises(ModelError, match="does not exist"):
        LocalLlamaServer(tmp_path / "none.gguf").start()


@pytest.mark.slow
def test_the_real_server_lists_its_model_and_answers(llama_server):
    client = ChatClient(llama_server.base_url, max_retries=1)
    assert client.models() == [llama_server.alias]
    result = client.chat(ChatRequest(({"role": "user", "content": "Say hello."},), max_tokens=16, seed=1))
    assert len(result.texts) == 1 and result.completion_tokens > 0 and result.usage_reported


@pytest.mark.slow
def test_openai_policy_samples_n_completions_per_task_from_the_real_server(llama_server):
    cfg = SamplingConfig(backend="openai", base_url=llama_server.base_url, max_new_tokens=64, concurrency=2)
    policy = OpenAIPolicy(cfg)
    rows = policy.sample(TASKS, 3, temperature=0.8, seed=0)
    assert [len(r) for r in rows] == [3, 3]
    assert all(c.new_tokens > 0 for r in rows for c in r)
    assert policy.total_new_tokens == sum(c.new_tokens for r in rows for c in r)
    report(f"OpenAIPolicy over llama.cpp: {policy.total_new_tokens} tokens, {policy.last_tokens_per_s:.1f} tok/s "
           f"(6 samples, 64 new tokens max, concurrency 2, 1 server thread)")


@pytest.mark.slow
def test_greedy_sampling_over_the_server_repeats_itself(llama_server):
    cfg = SamplingConfig(backend="openai", base_url=llama_server.base_url, max_new_tokens=32)
    first = OpenAIPolicy(cfg).sample(TASKS[:1], 1, temperature=0.0)
    again = OpenAIPolicy(cfg).sample(TASKS[:1], 1, temperature=0.0)
    assert first[0][0].text == again[0][0].text


@pytest.mark.slow
def test_leaving_the_context_kills_the_server_and_frees_its_port():
    pytest.importorskip("llama_cpp")
    pytest.importorskip("uvicorn")
    from spade.serving.llama_server import LocalLlamaServer

    with LocalLlamaServer() as server:
        pid = server._proc.pid  # noqa: SLF001 (the test checks the process itself)
        url = server.base_url
        urllib.request.urlopen(f"{url}/models", timeout=5).close()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(f"{url}/models", timeout=5)
