"""A model served on the user's machine (Ollama, llama.cpp server, vLLM), as docs/assistant.md shows:
``openai:<model>@<base_url>`` through the real OpenAI-compatible client, against a real HTTP server
on loopback that answers like one. What it extracts is grounded and weighs less than the rules'."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from remnant import Memory
from remnant.assistant import Assistant
from remnant.extract.llm import LLM_CONFIDENCE
from remnant.extract.rules import RuleExtractor
from remnant.llm import LocalLLM, OpenAICompatibleLLM, is_demo, llm_from_config

from .conftest import ChatServer

ROOT = Path(__file__).resolve().parents[2]

# What a small model answered in the trial, plus one true fact the rules do not know.
JUNK_AND_ONE_FACT = {
    "facts": [
        {"kind": "open_issue", "key": "order_5631", "value": "Parcel 2024-A"},
        {"kind": "fact", "key": "last_order_id", "value": "No"},
        {"kind": "fact", "key": "battery_life", "value": "8 years"},
        {"kind": "fact", "key": "pet", "value": "cat"},
    ]
}


def _serve_like_ollama(server: ChatServer) -> None:
    def reply(req: dict[str, Any]) -> str:
        if "response_format" in req:  # the extractor's structured call
            return json.dumps(JUNK_AND_ONE_FACT)
        return "Your parcel is on its way."

    server.reply = reply


def test_a_local_server_through_the_openai_compatible_provider(
    chat_server: ChatServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REMNANT_EMBEDDER", "static")
    _serve_like_ollama(chat_server)
    llm = llm_from_config(f"openai:qwen2.5:7b@{chat_server.base_url}")  # Ollama's model names have a ':'
    assert isinstance(llm, OpenAICompatibleLLM) and not is_demo(llm)
    with Memory(tmp_path / "support.db") as memory:
        bot = Assistant(memory, llm)
        reply = bot.reply("laura", "No, I moved to Berlin with my cat. Where is my parcel?")
        assert reply.text == "Your parcel is on its way."
        facts = {r.key: r for r in memory.list_memories("laura", kinds=["fact", "open_issue", "preference"])}
    assert chat_server.requests and all(r["model"] == "qwen2.5:7b" for r in chat_server.requests)
    assert set(facts) == {"city", "pet"}  # the invented order, the "No" and the battery never reach the store
    assert facts["city"].source == "extract:rules" and facts["pet"].source == "extract:llm"
    assert facts["pet"].confidence == LLM_CONFIDENCE < facts["city"].confidence
    assert memory_strength_below_rules(facts)


@pytest.mark.slow
def test_a_model_fact_never_replaces_what_the_user_said(
    chat_server: ChatServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REMNANT_EMBEDDER", "static")
    # "My sister lives in Paris": grounded, but about someone else; a small model files it as the city
    chat_server.reply = lambda req: (
        json.dumps({"facts": [{"kind": "fact", "key": "city", "value": "Paris"}]})
        if "response_format" in req
        else "Nice!"
    )
    llm = llm_from_config(f"openai:qwen2.5:7b@{chat_server.base_url}")
    with Memory(tmp_path / "m.db", privacy=False) as memory:
        memory.remember("I live in Berlin", user_id="ana", key="city")
        Assistant(memory, llm).reply("ana", "My sister lives in Paris")
        current = memory.current("city", user_id="ana")
        assert current is not None and current.content == "I live in Berlin"


def memory_strength_below_rules(facts: dict[str, Any]) -> bool:
    return bool(facts["pet"].strength0 < facts["city"].strength0 < 1.0)


def test_llm_facts_trust_less_than_any_rule() -> None:
    said = [
        "My name is Laura",
        "I moved to Berlin",
        "I like green tea",
        "my favourite colour is teal",
        "My phone number is 13812345678",
        "I'm a pharmacist now",
        "every morning I go swimming",
        "my locker code is 4411",
        "remind me to call the bank tomorrow",
        "我住在北京",
    ]
    confidences = [f.confidence for text in said for f in RuleExtractor().extract(text)]
    assert len(confidences) >= len(said) - 1
    assert min(confidences) > LLM_CONFIDENCE and max(confidences) < 1.0  # and remember() is 1.0


def test_the_bundled_model_is_a_demo_and_extraction_stays_with_rules(tmp_path: Path) -> None:
    demo = LocalLLM()  # nothing loads until the first call
    assert is_demo(demo)
    other = tmp_path / "qwen2.5-7b-instruct-q4_k_m.gguf"
    other.write_bytes(b"GGUF")
    assert not is_demo(LocalLLM(other))
    memory = Memory.minimal(tmp_path / "m.db")
    assert Assistant(memory, demo).extractor.llm is None
    assert Assistant(memory, demo, llm_extraction=True).extractor.llm is demo  # asked for explicitly
    assert Assistant(memory, LocalLLM(other)).extractor.llm is not None
    memory.close()


def _remnant(
    *args: str, stdin: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "remnant", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env={
            **os.environ,
            "PYTHONPATH": str(ROOT / "src"),
            "REMNANT_EMBEDDER": "static",
            "REMNANT_PRIVACY": "off",  # about the model path; spares the subprocess the PII model load
            **(env or {}),
        },
    )


@pytest.mark.slow
def test_remnant_chat_against_the_local_server(chat_server: ChatServer, tmp_path: Path) -> None:
    _serve_like_ollama(chat_server)
    db = str(tmp_path / "chat.db")
    spec = f"openai:qwen2.5:7b@{chat_server.base_url}"
    out = _remnant(
        "--db",
        db,
        "chat",
        "--user",
        "laura",
        stdin="I moved to Berlin with my cat\n/quit\n",
        env={"REMNANT_LLM": spec},
    )
    assert out.returncode == 0, out.stderr
    assert f"model: {spec}" in out.stdout and "assistant> Your parcel is on its way." in out.stdout
    listed = json.loads(_remnant("--db", db, "list", "-u", "laura", "--active", "--json").stdout)
    assert {m["key"] for m in listed if m["key"]} == {"city", "pet"}


@pytest.mark.slow
def test_help_and_chat_label_the_bundled_model_a_demo(tmp_path: Path) -> None:
    help_text = " ".join(_remnant("chat", "--help").stdout.split())
    assert "SmolLM2-135M, a demo" in help_text and "Ollama" in help_text
    out = _remnant(
        "--db", str(tmp_path / "c.db"), "chat", "--user", "laura", "--llm", "local", stdin="/quit\n"
    )
    assert out.returncode == 0, out.stderr
    assert "is a demo" in out.stderr
