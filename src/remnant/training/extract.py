"""Getting claims out of prose: a ``TripleExtractor`` seam with a rule-based implementation.

An LLM-backed extractor can be plugged in by implementing the protocol; the rule-based one
handles the manual-style sentences "The max concurrency of X is 15", "X's timeout is 30 s",
"X 的最大并发数为 15" and "X的超时时间是30秒".
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from remnant.training.claims import DEFAULT_AUTHORITY, Claim


@dataclass(frozen=True)
class Triple:
    entity: str
    attribute: str
    value: str


class TripleExtractor(Protocol):
    """Anything that turns a passage into (entity, attribute, value) triples."""

    def extract(self, text: str) -> list[Triple]: ...


_VALUE = r"(?P<value>(?:[^.,;。；，\n]|[.,](?=\d))+?)"
_EN = [
    re.compile(
        r"(?:^|(?<=[.;\n]))\s*(?:the\s+)?(?P<attr>[A-Za-z][\w \-/]*?)\s+of\s+(?P<ent>[\w\-/ ]+?)\s+(?:is|was|=)\s+"
        + _VALUE
        + r"\s*(?:[.;](?!\d)|\n|$)",
        re.IGNORECASE,
    ),
    re.compile(
        r"(?:^|(?<=[.;\n]))\s*(?P<ent>[\w\-/ ]+?)'s\s+(?P<attr>[\w \-/]+?)\s+(?:is|was)\s+"
        + _VALUE
        + r"\s*(?:[.;](?!\d)|\n|$)",
        re.IGNORECASE,
    ),
]
_ZH = re.compile(
    r"(?P<ent>[\w\-/]+?)\s*的\s*(?P<attr>[^\s的，。；为是]+?)\s*(?:为|是|=|：|:)\s*(?P<value>[^，。；;,\n]+)"
)


class RuleBasedExtractor:
    """Regex extraction for short specification sentences, English and Chinese."""

    def extract(self, text: str) -> list[Triple]:
        out: list[Triple] = []
        for sentence in re.split(r"(?<=[;。；\n])|(?<=\.)(?=\s|$)", text):
            sentence = sentence.strip()
            if not sentence:
                continue
            match = None
            for pattern in _EN:
                match = pattern.search(sentence)
                if match:
                    break
            if match is None:
                match = _ZH.search(sentence)
            if match:
                out.append(
                    Triple(
                        match.group("ent").strip(),
                        match.group("attr").strip(),
                        match.group("value").strip().rstrip(".。"),
                    )
                )
        return out


def claims_from_text(
    text: str,
    *,
    date: datetime,
    source: str,
    authority: float = DEFAULT_AUTHORITY,
    extractor: TripleExtractor | None = None,
) -> list[Claim]:
    """Extract triples from a passage and stamp them with its date, source and authority."""
    ex = extractor or RuleBasedExtractor()
    return [
        Claim(t.entity, t.attribute, t.value, date=date, source=source, authority=authority)
        for t in ex.extract(text)
    ]


def claims_from_documents(
    documents: Iterable[tuple[str, datetime, str, float]], extractor: TripleExtractor | None = None
) -> list[Claim]:
    """``documents`` yields (text, date, source, authority)."""
    out: list[Claim] = []
    for text, date, source, authority in documents:
        out.extend(claims_from_text(text, date=date, source=source, authority=authority, extractor=extractor))
    return out
