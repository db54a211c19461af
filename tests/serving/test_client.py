"""The chat client against real loopback servers: a scripted http.server, and a port nothing listens on."""

from __future__ import annotations

import pytest

from spade.config import SamplingConfig
from spade.errors import ModelError
from spade.serving.client import ChatClient, ChatRequest
from spade.serving.llama_server import free_port
from tests.serving.helpers import ScriptedServer, chat_body

ASK = ({"role": "user", "content": "hi"},)


def test_a_server_that_is_down_is_retried_then_stops_with_one_sentence():
    client = ChatClient(f"http://127.0.0.1:{free_port()}/v1", "m", max_retries=2, backoff_s=0.01)
    with pytest.raises(ModelError) as info:
        client.chat(ChatRequest(ASK))
    message = str(info.value)
    assert "failed 3 attempts" in message and "connection failed" in message
    assert "\n" not in message


def test_503_twice_then_an_answer_is_retried_to_success():
    script = [(503, {"error": {"message": "busy"}}), (503, {"error": {"message": "busy"}}), (200, chat_body("ok"))]
    with ScriptedServer(script) as server:
        client = ChatClient(server.base_url, "m", max_retries=3, backoff_s=0.01)
        result = client.chat(ChatRequest(ASK))
    assert result.texts == ("ok",)
    assert len(server.requests) == 3


def test_too_many_503s_raise_model_error_naming_the_status():
    with ScriptedServer([(503, {"error": {"message": "busy"}})]) as server:
        client = ChatClient(server.base_url, "m", max_retries=1, backoff_s=0.01)
        with pytest.raises(ModelError, match="HTTP 503"):
            client.chat(ChatRequest(ASK))
        assert len(server.requests) == 2


def test_a_400_is_not_retried_and_quotes_the_server():
    with ScriptedServer([(400, {"error": {"message": "model 'nope' not found"}})]) as server:
        client = ChatClient(server.base_url, "nope", max_retries=5, backoff_s=0.01)
        with pytest.raises(ModelError, match="model 'nope' not found"):
            client.chat(ChatRequest(ASK))
        assert len(server.requests) == 1


def test_a_server_ignoring_n_gets_repeated_requests_and_is_remembered():
    with ScriptedServer([(200, chat_body("a"))]) as server:
        client = ChatClient(server.base_url, "m", backoff_s=0.01)
        first = client.chat(ChatRequest(ASK, n=3, seed=5))
        second = client.chat(ChatRequest(ASK, n=2, seed=9))
    assert len(first.texts) == 3 and len(second.texts) == 2
    assert first.completion_tokens == 21
    # The first call asked n=3 once and then singly; afterwards n is not sent above 1 at all.
    assert [r["n"] for r in server.requests] == [3, 1, 1, 1, 1]
    assert [r["seed"] for r in server.requests[:3]] == [5, 6, 7]


def test_a_server_honouring_n_is_asked_once():
    with ScriptedServer([(200, chat_body("a", "b", "c"))]) as server:
        client = ChatClient(server.base_url, "m")
        result = client.chat(ChatRequest(ASK, n=3))
    assert result.texts == ("a", "b", "c") and len(server.requests) == 1


def test_json_mode_is_sent_and_dropped_when_the_server_refuses_it():
    script = [(400, {"error": {"message": "response_format is not supported"}}), (200, chat_body("{}"))]
    with ScriptedServer(script) as server:
        client = ChatClient(server.base_url, "m")
        client.chat(ChatRequest(ASK, json_mode=True))
        client.chat(ChatRequest(ASK, json_mode=True))
    sent = ["response_format" in r for r in server.requests]
    assert sent == [True, False, False]


def test_the_model_name_defaults_to_the_first_the_server_lists():
    with ScriptedServer([(200, chat_body("x"))]) as server:
        client = ChatClient(server.base_url)
        client.chat(ChatRequest(ASK))
    assert server.requests[0]["model"] == "scripted"


def test_chat_many_keeps_request_order_under_concurrency():
    with ScriptedServer([(200, chat_body("same"))]) as server:
        client = ChatClient(server.base_url, "m", concurrency=4)
        results = client.chat_many([ChatRequest(ASK, seed=i) for i in range(10)])
    assert len(results) == 10 and sorted(r["seed"] for r in server.requests) == list(range(10))


def test_the_api_key_comes_from_the_named_environment_variable(monkeypatch):
    monkeypatch.setenv("SPADE_TEST_KEY", "sk-test")
    client = ChatClient.from_sampling(SamplingConfig(backend="openai", api_key_env="SPADE_TEST_KEY"))
    assert client.api_key == "sk-test"


def test_a_base_url_without_scheme_is_a_user_error():
    with pytest.raises(ModelError, match="base_url = 'localhost:8000'"):
        ChatClient("localhost:8000")
