"""The LLM extractor: validated, grounded, and falling back to rules so the write still happens."""

from __future__ import annotations

import json

from remnant.extract.llm import LLMExtractor, grounded
from remnant.llm import OpenAICompatibleLLM

from .conftest import ChatServer, Scripted


def _llm(server: ChatServer) -> OpenAICompatibleLLM:
    return OpenAICompatibleLLM(
        "m", base_url=server.base_url, max_retries=1, backoff_base_s=0.01, timeout_s=10.0
    )


def test_valid_output_becomes_facts_with_normalised_keys(chat_server: ChatServer) -> None:
    chat_server.reply = lambda req: json.dumps(
        {
            "facts": [
                {"kind": "fact", "key": "Shoe Size", "value": "42"},
                {"kind": "fact", "key": "favourite colour", "value": "teal"},
            ]
        }
    )
    run = LLMExtractor(_llm(chat_server), merge_rules=False).run("My shoe size is 42 and I adore teal")
    assert run.source == "llm" and run.error is None
    got = {(f.kind, f.key, f.value) for f in run.facts}
    assert got == {("fact", "shoe_size", "42"), ("preference", "preferred_color", "teal")}
    assert all(f.source == "llm" for f in run.facts)
    assert chat_server.requests[0]["response_format"]["type"] == "json_schema"


def test_hallucinated_values_are_dropped(chat_server: ChatServer) -> None:
    chat_server.reply = lambda req: json.dumps(
        {"facts": [{"kind": "fact", "key": "city", "value": "Atlantis"}]}
    )
    run = LLMExtractor(_llm(chat_server), merge_rules=False).run("What is your return policy?")
    assert run.facts == [] and run.dropped[0]["value"] == "Atlantis"


def test_malformed_output_never_becomes_a_fact_and_rules_take_over(chat_server: ChatServer) -> None:
    chat_server.script = [Scripted(content='{"facts": [{"kind": "fact", "key": "city"')]  # truncated JSON
    run = LLMExtractor(_llm(chat_server)).run("I moved to Berlin")
    assert run.source == "rules" and "LLMOutputError" in (run.error or "")
    assert [(f.key, f.value, f.source) for f in run.facts] == [("city", "Berlin", "rules")]


def test_wrong_shape_is_rejected(chat_server: ChatServer) -> None:
    chat_server.script = [
        Scripted(content=json.dumps({"facts": [{"kind": "rumour", "key": "city", "value": "Berlin"}]}))
    ]
    run = LLMExtractor(_llm(chat_server)).run("I moved to Berlin")
    assert run.source == "rules" and "kind" in (run.error or "")


def test_unreachable_endpoint_falls_back_to_rules(chat_server: ChatServer) -> None:
    chat_server.script = [Scripted(status=503, body="down"), Scripted(status=503, body="down")]
    run = LLMExtractor(_llm(chat_server)).run("我的手机号是13812345678")
    assert run.source == "rules" and "LLMUnavailable" in (run.error or "")
    assert [(f.key, f.value) for f in run.facts] == [("phone_number", "13812345678")]


def test_rules_win_on_shared_keys_when_merging(chat_server: ChatServer) -> None:
    chat_server.reply = lambda req: json.dumps(
        {
            "facts": [
                {"kind": "fact", "key": "city", "value": "Berlin last week"},
                {"kind": "fact", "key": "pet", "value": "cat"},
            ]
        }
    )
    run = LLMExtractor(_llm(chat_server)).run("I moved to Berlin last week with my cat")
    facts = {f.key: (f.value, f.source) for f in run.facts}
    assert facts == {"city": ("Berlin", "rules"), "pet": ("cat", "llm")}
    assert run.source == "llm+rules"


def test_no_llm_means_rules() -> None:
    run = LLMExtractor(None).run("I live in Oslo")
    assert run.source == "rules" and run.facts[0].value == "Oslo"


def test_grounded() -> None:
    assert grounded("Berlin", "I moved to berlin")
    assert grounded("草莓蛋糕", "我喜欢草莓蛋糕")
    assert not grounded("上海", "我住在北京")
    assert not grounded("Atlantis", "Where is my parcel?")
