"""A summariser that needs no model: picks sentences and rule-extracted facts, keeps every entity.

It is the fallback when no LLM is configured or the model fails, and a baseline for the LLM one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from remnant.extract.model import ExtractedFact
from remnant.extract.rules import RuleExtractor
from remnant.llm.base import Message
from remnant.summarize.entities import entities_of_turns
from remnant.summarize.lexicon import words
from remnant.summarize.template import StructuredSummary

# what makes a sentence the core request: each language's cues (data/<lang>/summary.json)
_REQUEST = re.compile(
    r"\b(?:" + "|".join(words("request_cues", "en")) + r")\b|\?|？|" + "|".join(words("request_cues", "zh")),
    re.I,
)
_SENTENCE = re.compile(r"(?:[^.!?。！？\n]|\.(?=\S))+[.!?。！？]?")  # "$129.99" is not a sentence end
_MAX_REQUEST_CHARS = 200


def _first_request(turns: Sequence[Message]) -> str:
    user_texts = [t["content"] for t in turns if t["role"] == "user" and t["content"].strip()]
    for text in user_texts:
        for sentence in _SENTENCE.findall(text):
            if _REQUEST.search(sentence):
                return sentence.strip()[:_MAX_REQUEST_CHARS]
    return user_texts[0].strip()[:_MAX_REQUEST_CHARS] if user_texts else ""


class ExtractiveSummarizer:
    """Summarise turns with the rule extractor and regex entities; deterministic and offline."""

    name = "extractive"

    def __init__(self, extractor: RuleExtractor | None = None) -> None:
        self.extractor = extractor or RuleExtractor()

    def summarize(self, turns: Sequence[Message]) -> StructuredSummary:
        latest: dict[str, ExtractedFact] = {}
        for turn in turns:
            for fact in self.extractor.extract(turn["content"], role=turn["role"]):
                latest.pop(fact.key, None)  # re-insert so order follows the latest mention
                latest[fact.key] = fact
        facts = list(latest.values())
        pending = [f.content for f in facts if f.kind == "open_issue"]
        last = turns[-1] if turns else None
        if last is not None and last["role"] == "user" and re.search(r"[?？]\s*$", last["content"]):
            pending.append(f"Unanswered: {last['content'].strip()[:_MAX_REQUEST_CHARS]}")
        return StructuredSummary(
            core_request=_first_request(turns),
            confirmed_facts=[f.content for f in facts if f.kind == "fact"],
            pending_items=pending,
            preferences=[f.content for f in facts if f.kind == "preference"],
            key_entities=entities_of_turns(t["content"] for t in turns),
            turns=len(turns),
            source="extractive",
        )
