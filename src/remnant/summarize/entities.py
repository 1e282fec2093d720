"""Key entities (order numbers, dates, amounts, product codes) and whether a summary kept them.

A summary that says "the user's order is late" instead of "order A77812 is late" loses exactly
what customer service needs, so entities are pulled out of the turns with regular expressions and
must appear verbatim in the summary. `entity_survival` measures how many did.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from remnant.summarize.lexicon import words

# the words are each language's data (data/<lang>/summary.json)
_MONTHS = "(?:" + "|".join(words("months")) + ")"
_ORDINAL = "(?:" + "|".join(words("ordinal_suffixes")) + ")"
_ORDER_WORDS = "|".join([rf"\b{w}" for w in words("order_words", "en")] + list(words("order_words", "zh")))
_ID_WORDS = "|".join(words("id_words"))
_CURRENCY = "|".join(words("currency_words"))

ENTITY_PATTERNS: dict[str, re.Pattern[str]] = {
    "order": re.compile(
        rf"(?:{_ORDER_WORDS})\s*(?:{_ID_WORDS})?\s*[:：#]?\s*"
        r"(?P<id>[A-Za-z]{0,6}[-_]?\d[A-Za-z0-9_-]{3,})",
        re.I,
    ),
    "code": re.compile(r"(?<![\w#])(?P<id>#\d{4,}|[A-Z]{2,}[-_]?\d{4,}[A-Z0-9]*)(?![\w])"),
    "date": re.compile(
        r"(?P<id>\d{4}-\d{1,2}-\d{1,2}|\d{1,2}/\d{1,2}/\d{2,4}|\d{4}年\d{1,2}月\d{1,2}[日号]|\d{1,2}月\d{1,2}[日号]"
        rf"|{_MONTHS}\.? \d{{1,2}}{_ORDINAL}?(?:,? \d{{4}})?|\d{{1,2}}{_ORDINAL}? {_MONTHS}(?: \d{{4}})?)"
    ),
    "amount": re.compile(
        rf"(?P<id>[$€£¥￥]\s?\d[\d,]*(?:\.\d+)?|\d[\d,]*(?:\.\d+)?\s?(?:{_CURRENCY}))",
        re.I,
    ),
    "product": re.compile(r"(?<![\w-])(?P<id>[A-Z]{1,3}\d{2,4}[A-Za-z]?)(?![\w-])"),
}


def extract_entities(text: str) -> list[str]:
    """Entities in `text`, verbatim, in order of appearance; ones inside a longer entity are dropped."""
    spans: list[tuple[int, int, str]] = []
    for pattern in ENTITY_PATTERNS.values():
        for m in pattern.finditer(text):
            spans.append((m.start("id"), m.end("id"), m.group("id").strip()))
    spans.sort(key=lambda s: (s[0], -(s[1] - s[0])))
    kept: list[tuple[int, int, str]] = []
    for start, end, value in spans:
        if any(s <= start and end <= e for s, e, _ in kept):
            continue
        kept.append((start, end, value))
    out: list[str] = []
    for _, _, value in sorted(kept):
        if value not in out:
            out.append(value)
    return out


def entities_of_turns(texts: Iterable[str]) -> list[str]:
    """Entities across several turns, first occurrence first, without duplicates."""
    out: list[str] = []
    for text in texts:
        for entity in extract_entities(text):
            if entity not in out:
                out.append(entity)
    return out


@dataclass(frozen=True, slots=True)
class Survival:
    """Which of the turns' entities appear verbatim in a summary."""

    entities: tuple[str, ...]
    kept: tuple[str, ...]

    @property
    def missing(self) -> tuple[str, ...]:
        return tuple(e for e in self.entities if e not in self.kept)

    @property
    def rate(self) -> float:
        return len(self.kept) / len(self.entities) if self.entities else 1.0


def entity_survival(texts: Iterable[str], summary_text: str) -> Survival:
    """Measure entity survival: entities found in `texts` that occur verbatim in `summary_text`."""
    entities = entities_of_turns(texts)
    kept = tuple(e for e in entities if e in summary_text)
    return Survival(tuple(entities), kept)
