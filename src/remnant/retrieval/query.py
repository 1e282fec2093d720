"""Query analysis: words, stop words, FTS5 query strings, CJK handling and date mentions.

FTS5 matches with AND by default, which on natural-language questions ("What did Melanie
paint last year?") finds nothing; BM25 over an OR of the content words ranks well instead.
Normalisation and CJK handling (NFKC, bigrams of Han / kana / hangul runs) are the core's
(:mod:`remnant.core.text`), the same the stores index with, so a query finds what was indexed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from remnant.core.limits import MAX_QUERY_CHARS
from remnant.core.text import (
    RANKING_STOPWORDS,
    cjk_bigrams,
    has_cjk,
    index_text,
    match_expression,
    normalize,
    query_terms,
)
from remnant.core.text import tokens as _tokens
from remnant.core.text.numerals import MONTH_NUMBER

MAX_FTS_TERMS = 48

# The core's ranking stop words (remnant.core.text.stopwords), tuned on LoCoMo.
STOPWORDS = RANKING_STOPWORDS

_WORD = re.compile(r"\w+", re.UNICODE)
_MONTHS = MONTH_NUMBER
_YEAR = re.compile(r"\b(19\d\d|20\d\d)\b")


__all__ = [
    "MAX_FTS_TERMS",
    "MAX_QUERY_CHARS",
    "STOPWORDS",
    "DateMention",
    "QueryAnalysis",
    "analyze",
    "cjk_bigrams",
    "content_terms",
    "date_mentions",
    "fts_or_query",
    "has_cjk",
    "lexical_text",
    "question_cues",
    "words",
]


def lexical_text(text: str) -> str:
    """Text as it should be put in a full-text index: the core's index text (NFKC, CJK bigrams)."""
    return index_text(text)


def words(text: str) -> list[str]:
    """Lower-cased word tokens (CJK runs expanded to bigrams; snake_case kept whole)."""
    return _tokens(text, split_underscores=False)


def content_terms(text: str, *, keep_stopwords: bool = False) -> list[str]:
    """Distinct query terms in order, stop words dropped (all kept if nothing else remains)."""
    return query_terms(
        text,
        drop_stopwords=not keep_stopwords,
        stopwords=STOPWORDS,
        split_underscores=False,
        limit=MAX_FTS_TERMS,
    )


def fts_or_query(text: str, *, keep_stopwords: bool = False) -> str:
    """An FTS5 MATCH string: the content terms, each quoted (so no syntax leaks), OR-ed.

    Returns "" when the text has no word characters at all (callers then skip lexical search).
    """
    return match_expression(content_terms(text, keep_stopwords=keep_stopwords))


@dataclass(frozen=True)
class DateMention:
    """A month and/or year named in a query ("last May", "in 2022", "June 2023")."""

    year: int | None = None
    month: int | None = None


@dataclass(frozen=True)
class QueryAnalysis:
    """What the retriever needs to know about a query."""

    text: str
    terms: list[str] = field(default_factory=list)
    fts: str = ""
    cjk: bool = False
    temporal: bool = False
    dates: list[DateMention] = field(default_factory=list)


_DATA = Path(__file__).resolve().parent / "data"


@cache
def question_cues(field: str, lang: str) -> tuple[str, ...]:
    """One field of ``retrieval/data/questions.<lang>.json`` (recall's question cues), read once."""
    data = json.loads((_DATA / f"questions.{lang}.json").read_text(encoding="utf-8"))
    return tuple(data.get(field, ()))


_TEMPORAL_CUES = re.compile(r"\b(" + "|".join(question_cues("temporal_cues", "en")) + r")\b", re.IGNORECASE)


def date_mentions(text: str) -> list[DateMention]:
    """Months and years named in the text (a month next to a year is paired)."""
    out: list[DateMention] = []
    toks = [t.lower() for t in _WORD.findall(text)]
    for i, tok in enumerate(toks):
        if tok in _MONTHS:
            # "may" is also a verb: only count it when capitalised in the original text.
            if tok == "may" and not re.search(r"\bMay\b", text):
                continue
            year = None
            for j in (i + 1, i + 2):
                if j < len(toks) and _YEAR.fullmatch(toks[j]):
                    year = int(toks[j])
                    break
            out.append(DateMention(year=year, month=_MONTHS[tok]))
    paired = {d.year for d in out if d.year}
    for m in _YEAR.finditer(text):
        y = int(m.group(1))
        if y not in paired:
            out.append(DateMention(year=y))
    return out


def analyze(text: str) -> QueryAnalysis:
    """Validate and analyse a query. Raises ValueError-derived errors for unusable input."""
    from remnant.retrieval.errors import QueryTooLong, RetrievalError

    if not isinstance(text, str):
        raise RetrievalError(f"query must be a string, got {type(text).__name__}")
    if len(text) > MAX_QUERY_CHARS:
        raise QueryTooLong(f"query is {len(text)} characters; the limit is {MAX_QUERY_CHARS}")
    norm = normalize(text)  # full-width "Ｍａｙ ２０２３" is "May 2023"
    return QueryAnalysis(
        text=text,
        terms=content_terms(text),
        fts=fts_or_query(text),
        cjk=has_cjk(norm),
        temporal=bool(_TEMPORAL_CUES.search(norm)),
        dates=date_mentions(norm),
    )
