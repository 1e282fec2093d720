"""LLM summaries in the seed's template: few-shot, schema-constrained, entity-guarded, with fallback.

The model fills the five fields as JSON. Because even good models paraphrase "A77812" into "your
order", every regex-found entity missing from the model's summary is appended to `key_entities`
verbatim (the entity guard), and lines naming entities that occur in none of the turns are
dropped (small models copy the few-shot example or invent numbers). Invalid output or an unreachable model falls back to the extractive
summariser, so a summary is always produced.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from remnant.llm.base import LLM, LLMError, Message
from remnant.llm.structured import complete_json
from remnant.summarize.entities import Survival, entities_of_turns, entity_survival, extract_entities
from remnant.summarize.extractive import ExtractiveSummarizer
from remnant.summarize.template import SUMMARY_SCHEMA, StructuredSummary

SYSTEM_PROMPT = (
    "Summarise the customer conversation as JSON with: core_request (one sentence), confirmed_facts, "
    "pending_items, preferences, key_entities. Copy order numbers, dates and amounts exactly."
)

_EXAMPLE_TURNS = (
    "user: My order #B5521 from 2024-03-02 hasn't arrived. It cost $49.90.\n"
    "assistant: Sorry! I have opened a ticket for order B5521.\n"
    "user: Thanks. Please contact me by email, I live in Leeds."
)
_EXAMPLE_SUMMARY = {
    "core_request": "Order B5521 has not arrived.",
    "confirmed_facts": ["User lives in Leeds", "Order B5521 placed 2024-03-02 for $49.90"],
    "pending_items": ["Delivery of order B5521 (ticket opened)"],
    "preferences": ["Contact by email"],
    "key_entities": ["B5521", "2024-03-02", "$49.90"],
}


def transcript(turns: Sequence[Message]) -> str:
    """Turns as ``role: text`` lines, the input format the few-shot example uses."""
    return "\n".join(f"{t['role']}: {t['content'].strip()}" for t in turns)


@dataclass(frozen=True, slots=True)
class SummaryRun:
    """A summary plus how it was made and how many entities the model kept before the guard."""

    summary: StructuredSummary
    source: str
    raw_survival: Survival | None
    error: str | None = None
    dropped: tuple[str, ...] = ()


def _drop_ungrounded(summary: StructuredSummary, texts: Sequence[str]) -> tuple[str, ...]:
    """Remove summary lines naming entities that occur in none of the turns (hallucinated or copied
    from the few-shot example); key entities must occur verbatim. Returns what was removed."""
    source = "\n".join(texts)
    dropped: list[str] = []

    def ok(line: str) -> bool:
        good = all(e in source for e in extract_entities(line))
        if not good:
            dropped.append(line)
        return good

    if summary.core_request and not ok(summary.core_request):
        summary.core_request = ""
    summary.confirmed_facts = [x for x in summary.confirmed_facts if ok(x)]
    summary.pending_items = [x for x in summary.pending_items if ok(x)]
    summary.preferences = [x for x in summary.preferences if ok(x)]
    kept = [e for e in summary.key_entities if e in source]
    dropped.extend(e for e in summary.key_entities if e not in source)
    summary.key_entities = kept
    return tuple(dropped)


class LLMSummarizer:
    """Summarise with a model; guard entities; fall back to `ExtractiveSummarizer` on failure."""

    name = "llm"

    def __init__(
        self,
        llm: LLM | None,
        *,
        fallback: ExtractiveSummarizer | None = None,
        entity_guard: bool = True,
        max_tokens: int = 320,
    ) -> None:
        self.llm = llm
        self.fallback = fallback or ExtractiveSummarizer()
        self.entity_guard = entity_guard
        self.max_tokens = max_tokens

    def run(self, turns: Sequence[Message]) -> SummaryRun:
        if self.llm is None:
            return SummaryRun(self.fallback.summarize(turns), "extractive", None, "no LLM configured")
        messages: list[Message] = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": _EXAMPLE_TURNS},
            {"role": "assistant", "content": json.dumps(_EXAMPLE_SUMMARY, ensure_ascii=False)},
            {"role": "user", "content": transcript(turns)},
        ]
        try:
            data, _ = complete_json(self.llm, messages, SUMMARY_SCHEMA, max_tokens=self.max_tokens)
        except LLMError as exc:
            return SummaryRun(
                self.fallback.summarize(turns), "extractive", None, f"{type(exc).__name__}: {exc}"
            )
        summary = StructuredSummary.from_json(data, turns=len(turns), source="llm")
        texts = [t["content"] for t in turns]
        dropped = _drop_ungrounded(summary, texts)
        raw = entity_survival(texts, summary.render())  # what the model kept, before any repair
        if not summary.core_request:
            summary.core_request = self.fallback.summarize(turns).core_request
        if self.entity_guard:
            for entity in entities_of_turns(texts):
                if entity not in summary.key_entities:
                    summary.key_entities.append(entity)
        return SummaryRun(summary, "llm", raw, dropped=dropped)

    def summarize(self, turns: Sequence[Message]) -> StructuredSummary:
        return self.run(turns).summary
