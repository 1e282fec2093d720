"""The real local model (SmolLM2-135M via xllamacpp): one extraction, one summary, HTTP parity.

Inputs are tiny and `max_tokens` small so the three model calls stay within a few seconds.
The assertions check the contract (valid, grounded, schema-conforming, entities kept), not the
quality of a 135M-parameter model's judgement.
"""

from __future__ import annotations

from typing import Any

import pytest

from remnant.extract.llm import LLMExtractor
from remnant.llm import OpenAICompatibleLLM, complete_json
from remnant.summarize import LLMSummarizer, entity_survival

pytestmark = pytest.mark.llm


def test_local_extraction_is_valid_and_grounded(local_llm: Any) -> None:
    text = "My email is anna@example.com"
    run = LLMExtractor(local_llm, merge_rules=False, max_tokens=60).run(text)
    assert run.source in ("llm", "rules")  # "rules" only if the model's JSON was unusable
    for fact in run.facts:
        assert fact.kind in ("preference", "fact", "open_issue") and fact.key
        assert fact.value.lower() in text.lower() or fact.source == "rules"
    merged = LLMExtractor(local_llm, max_tokens=60).run(text)
    assert ("email", "anna@example.com") in {(f.key, f.value) for f in merged.facts}


def test_local_summary_keeps_entities(local_llm: Any) -> None:
    turns = [{"role": "user", "content": "Order #A771 is late. I paid $20."}]
    run = LLMSummarizer(local_llm, max_tokens=120).run(turns)  # type: ignore[arg-type]
    assert run.summary.core_request
    assert entity_survival([turns[0]["content"]], run.summary.render()).rate == 1.0


def test_openai_provider_against_llama_cpp_http_server(local_llm: Any) -> None:
    base_url = local_llm.http_base_url
    if not base_url:
        pytest.skip("this xllamacpp build does not expose its HTTP address")
    llm = OpenAICompatibleLLM("smollm2", base_url=base_url, timeout_s=60, max_retries=0)
    schema = {
        "type": "object",
        "properties": {"answer": {"type": "string", "maxLength": 8}},
        "required": ["answer"],
    }
    data, completion = complete_json(
        llm, [{"role": "user", "content": "Say yes as JSON."}], schema, max_tokens=48
    )
    assert isinstance(data["answer"], str)
    assert completion.prompt_tokens > 0 and completion.completion_tokens > 0
