"""Structured summaries: the template, entity survival, the extractive fallback and the LLM path."""

from __future__ import annotations

import json

from remnant.llm import OpenAICompatibleLLM
from remnant.summarize import (
    ExtractiveSummarizer,
    LLMSummarizer,
    StructuredSummary,
    entity_survival,
    extract_entities,
)

from .conftest import ChatServer, Scripted

TURNS = [
    {"role": "user", "content": "Hi, my order #A77812 from 2024-05-03 hasn't arrived. I paid $129.99."},
    {"role": "assistant", "content": "Sorry! Order A77812 shipped with tracking SF1234567890."},
    {"role": "user", "content": "I moved to Munich last month. I prefer email over phone calls."},
    {"role": "user", "content": "另外，订单号20240517的金额是299元，5月3日下单。能退款吗？"},
]
TEXTS = [t["content"] for t in TURNS]


def test_entities_are_found_verbatim() -> None:
    assert extract_entities(TEXTS[0]) == ["A77812", "2024-05-03", "$129.99"]
    assert extract_entities(TEXTS[3]) == ["20240517", "299元", "5月3日"]
    assert extract_entities("Tracking SF1234567890, RMA-5521, the X200, March 3rd, 2024, €45") == [
        "SF1234567890",
        "RMA-5521",
        "X200",
        "March 3rd, 2024",
        "€45",
    ]


def test_entity_survival_counts_verbatim_presence() -> None:
    s = entity_survival(TEXTS[:1], "Order A77812 ($129.99) is late")
    assert s.entities == ("A77812", "2024-05-03", "$129.99")
    assert s.kept == ("A77812", "$129.99") and s.missing == ("2024-05-03",)
    assert abs(s.rate - 2 / 3) < 1e-9
    assert entity_survival(["no entities here"], "").rate == 1.0


def test_extractive_summary_fills_the_template_and_keeps_every_entity() -> None:
    summary = ExtractiveSummarizer().summarize(TURNS)
    assert summary.core_request.startswith("Hi, my order #A77812")
    assert "User lives in Munich" in summary.confirmed_facts
    assert any("A77812" in p for p in summary.pending_items)
    assert any("能退款吗" in p for p in summary.pending_items)  # the last question is unanswered
    assert summary.preferences == ["User prefers email over phone calls"]
    text = summary.render()
    assert entity_survival(TEXTS, text).rate == 1.0
    assert text.splitlines()[0].startswith("[Core request]")
    assert "[关键实体]" in summary.render("zh")
    assert summary.turns == 4


def test_summary_json_round_trip() -> None:
    s = StructuredSummary("Refund", ["a"], ["b"], ["c"], ["X1"])
    assert StructuredSummary.from_json(s.to_json()).to_json() == s.to_json()


def _llm(server: ChatServer) -> OpenAICompatibleLLM:
    return OpenAICompatibleLLM("m", base_url=server.base_url, max_retries=0, timeout_s=10.0)


def test_llm_summary_is_guarded_and_hallucinations_dropped(chat_server: ChatServer) -> None:
    chat_server.reply = lambda req: json.dumps(
        {
            "core_request": "The customer's order has not arrived.",
            "confirmed_facts": [
                "User lives in Munich",
                "Order B5521 costs $49.90",
            ],  # copied from the example
            "pending_items": ["Delivery of the order"],
            "preferences": ["Contact by email"],
            "key_entities": ["A77812", "B5521"],
        }
    )
    run = LLMSummarizer(_llm(chat_server)).run(TURNS)
    assert run.source == "llm"
    assert run.summary.confirmed_facts == ["User lives in Munich"]
    assert "Order B5521 costs $49.90" in run.dropped and "B5521" in run.dropped
    assert run.raw_survival is not None and run.raw_survival.kept == ("A77812",)
    assert entity_survival(TEXTS, run.summary.render()).rate == 1.0  # the guard restores the rest
    few_shot = chat_server.requests[0]["messages"]
    assert few_shot[0]["role"] == "system" and few_shot[2]["role"] == "assistant"


def test_llm_summary_falls_back_on_bad_output(chat_server: ChatServer) -> None:
    chat_server.script = [Scripted(content='{"core_request": "x"}')]  # missing required fields
    run = LLMSummarizer(_llm(chat_server)).run(TURNS)
    assert run.source == "extractive" and "missing required field" in (run.error or "")
    assert entity_survival(TEXTS, run.summary.render()).rate == 1.0


def test_llm_summary_falls_back_when_unreachable(chat_server: ChatServer) -> None:
    chat_server.script = [Scripted(status=502, body="bad gateway")]
    run = LLMSummarizer(_llm(chat_server)).run(TURNS)
    assert run.source == "extractive" and "LLMUnavailable" in (run.error or "")


def test_summary_evaluation_without_a_model() -> None:
    from remnant.summarize.evaluate import CONVERSATIONS, evaluate

    result = evaluate()
    assert result == {"extractive": 1.0, "conversations": len(CONVERSATIONS)}
