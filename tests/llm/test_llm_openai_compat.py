"""The OpenAI-compatible provider against a real HTTP server on loopback."""

from __future__ import annotations

import json
import socket

import pytest

from remnant.llm import (
    LLMOutputError,
    LLMRequestError,
    LLMUnavailable,
    OpenAICompatibleLLM,
    complete_json,
)

from .conftest import ChatServer, Scripted

MSG = [{"role": "user", "content": "hi"}]


def _client(server: ChatServer, **kw: object) -> OpenAICompatibleLLM:
    opts: dict[str, object] = {
        "base_url": server.base_url,
        "api_key": "sk-test",
        "backoff_base_s": 0.01,
        "timeout_s": 2.0,
    }
    opts.update(kw)
    return OpenAICompatibleLLM("test-model", **opts)  # type: ignore[arg-type]


def test_completion_reads_text_usage_and_sends_auth(chat_server: ChatServer) -> None:
    with _client(chat_server) as llm:
        c = llm.complete(MSG, max_tokens=5, temperature=0.3)
    assert c.text == "hello from loopback"
    assert (c.prompt_tokens, c.completion_tokens, c.total_tokens) == (11, 7, 18)
    assert c.model == "test-model"
    req = chat_server.requests[0]
    assert req["messages"] == MSG and req["max_tokens"] == 5 and req["temperature"] == 0.3
    assert "response_format" not in req
    assert chat_server.headers[0]["Authorization"] == "Bearer sk-test"


def test_json_schema_is_sent_as_response_format_and_validated(chat_server: ChatServer) -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    chat_server.reply = lambda req: json.dumps({"city": "Berlin"})
    with _client(chat_server) as llm:
        data, _ = complete_json(llm, MSG, schema)
    assert data == {"city": "Berlin"}
    rf = chat_server.requests[0]["response_format"]
    assert rf["type"] == "json_schema" and rf["json_schema"]["schema"] == schema


@pytest.mark.parametrize(
    "content", ["not json at all", '{"town": "Berlin"}', '{"city": 42}', '```json\n{"city": 1}\n```']
)
def test_malformed_model_output_raises_output_error(chat_server: ChatServer, content: str) -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    chat_server.script = [Scripted(content=content)]
    with _client(chat_server) as llm, pytest.raises(LLMOutputError):
        complete_json(llm, MSG, schema)


def test_retries_5xx_and_429_then_succeeds(chat_server: ChatServer) -> None:
    chat_server.script = [
        Scripted(status=503, body='{"error": "overloaded"}'),
        Scripted(status=429, body='{"error": "slow down"}', headers={"Retry-After": "0"}),
    ]
    with _client(chat_server, max_retries=3) as llm:
        c = llm.complete(MSG)
        assert c.text == "hello from loopback"
        assert llm.attempts == 3


def test_gives_up_after_retries_with_unavailable(chat_server: ChatServer) -> None:
    chat_server.script = [Scripted(status=500, body="boom") for _ in range(5)]
    sleeps: list[float] = []
    with (
        _client(chat_server, max_retries=2, sleep=sleeps.append) as llm,
        pytest.raises(LLMUnavailable, match="HTTP 500"),
    ):
        llm.complete(MSG)
    assert len(sleeps) == 2 and sleeps[1] > sleeps[0] * 0.9  # exponential schedule (with jitter)
    assert len(chat_server.requests) == 3


def test_client_error_is_not_retried(chat_server: ChatServer) -> None:
    chat_server.script = [Scripted(status=400, body='{"error": "bad model"}')]
    with _client(chat_server) as llm, pytest.raises(LLMRequestError, match="HTTP 400"):
        llm.complete(MSG)
    assert len(chat_server.requests) == 1


# A slow answer hangs (until the test ends) rather than racing the timeout, and the timeout is
# long enough for a fast answer on a loaded machine (0.2-0.3 s against 1 s delays raced both ways).
HANG_S = 60.0


@pytest.mark.slow
def test_slow_endpoint_times_out_and_is_retried(chat_server: ChatServer) -> None:
    chat_server.script = [Scripted(delay_s=HANG_S), Scripted(delay_s=HANG_S)]
    with (
        _client(chat_server, timeout_s=1.0, max_retries=1) as llm,
        pytest.raises(LLMUnavailable, match="timed out"),
    ):
        llm.complete(MSG)
    assert llm.attempts == 2


def test_slow_then_fast_recovers(chat_server: ChatServer) -> None:
    chat_server.script = [Scripted(delay_s=HANG_S)]
    with _client(chat_server, timeout_s=1.0, max_retries=1) as llm:
        assert llm.complete(MSG).text == "hello from loopback"


def test_non_json_body_and_missing_choices_raise_output_error(chat_server: ChatServer) -> None:
    chat_server.script = [Scripted(body="<html>gateway</html>"), Scripted(body='{"choices": []}')]
    with _client(chat_server) as llm:
        with pytest.raises(LLMOutputError, match="non-JSON"):
            llm.complete(MSG)
        with pytest.raises(LLMOutputError, match="choices"):
            llm.complete(MSG)


def test_connection_refused_is_unavailable() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed once we leave: nothing listens there
    llm = OpenAICompatibleLLM("m", base_url=f"http://127.0.0.1:{port}/v1", max_retries=1, backoff_base_s=0.01)
    with pytest.raises(LLMUnavailable, match="connection failed"):
        llm.complete(MSG)


def test_bad_messages_are_rejected_before_sending(chat_server: ChatServer) -> None:
    with _client(chat_server) as llm:
        with pytest.raises(ValueError):
            llm.complete([])
        with pytest.raises(ValueError, match="role"):
            llm.complete([{"role": "tool", "content": "x"}])  # type: ignore[list-item]
    assert chat_server.requests == []
