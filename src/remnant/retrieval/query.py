"""Query analysis: words, stop words, FTS5 query strings, CJK handling and date mentions.

FTS5 matches with AND by default, which on natural-language questions ("What did Melanie
paint last year?") finds nothing; BM25 over an OR of the content words ranks well instead.
Chinese, Japanese and Korean text has no spaces, so the unicode61 tokenizer would make a
whole sentence one token; both stored text and queries therefore get CJK runs expanded into
overlapping character bigrams (the classic CJK indexing trick), which any FTS5 tokenizer can
match.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from remnant.core.text import STOPWORDS as CORE_STOPWORDS

MAX_QUERY_CHARS = 4000
MAX_FTS_TERMS = 48

# The core stop-word list (remnant.core.text), adjusted by what LoCoMo measured for ranking:
# contractions' stems and vague nouns ("thing", "kind") are noise; "done", "gets", "really" carry meaning.
STOPWORDS = (CORE_STOPWORDS - {"done", "gets", "really"}) | frozenset(
    [
        "couldn",
        "didn",
        "doesn",
        "don",
        "go",
        "going",
        "gone",
        "hadn",
        "hasn",
        "haven",
        "isn",
        "kind",
        "kinds",
        "let",
        "lets",
        "like",
        "may",
        "might",
        "must",
        "shall",
        "shouldn",
        "sort",
        "thing",
        "things",
        "wasn",
        "weren",
        "won",
        "wouldn",
        "yet",
    ]
)

_WORD = re.compile(r"\w+", re.UNICODE)
_CJK = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\U00020000-\U0002ffff]+"
)
_MONTHS = {
    m: i + 1
    for i, m in enumerate(
        [
            "january",
            "february",
            "march",
            "april",
            "may",
            "june",
            "july",
            "august",
            "september",
            "october",
            "november",
            "december",
        ]
    )
}
_YEAR = re.compile(r"\b(19\d\d|20\d\d)\b")


def has_cjk(text: str) -> bool:
    """True if the text contains Chinese, Japanese or Korean characters."""
    return _CJK.search(text) is not None


def cjk_bigrams(run: str) -> list[str]:
    """Overlapping character bigrams of a CJK run (a single character stays itself)."""
    if len(run) < 2:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def lexical_text(text: str) -> str:
    """Text as it should be put in a full-text index: CJK runs become space-separated bigrams."""
    if not has_cjk(text):
        return text
    return _CJK.sub(lambda m: " " + " ".join(cjk_bigrams(m.group(0))) + " ", text)


def words(text: str) -> list[str]:
    """Lower-cased word tokens (CJK runs expanded to bigrams)."""
    return [w.lower() for w in _WORD.findall(lexical_text(text))]


def content_terms(text: str, *, keep_stopwords: bool = False) -> list[str]:
    """Distinct query terms in order, stop words dropped (all kept if nothing else remains)."""
    toks = words(text)
    terms = toks if keep_stopwords else [t for t in toks if t not in STOPWORDS]
    if not terms:
        terms = toks
    return list(dict.fromkeys(terms))[:MAX_FTS_TERMS]


def fts_or_query(text: str, *, keep_stopwords: bool = False) -> str:
    """An FTS5 MATCH string: the content terms, each quoted (so no syntax leaks), OR-ed.

    Returns "" when the text has no word characters at all (callers then skip lexical search).
    """
    terms = content_terms(text, keep_stopwords=keep_stopwords)
    # A lone CJK character cannot equal an indexed bigram: match it as a bigram prefix instead.
    return " OR ".join(
        '"' + t.replace('"', '""') + '"' + ("*" if len(t) == 1 and has_cjk(t) else "") for t in terms
    )


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


_TEMPORAL_CUES = re.compile(
    r"\b(when|what (?:year|month|day|date|time)|how long|since|ago|last (?:week|month|year)|"
    r"yesterday|recently|before|after|date)\b",
    re.IGNORECASE,
)


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
    return QueryAnalysis(
        text=text,
        terms=content_terms(text),
        fts=fts_or_query(text),
        cjk=has_cjk(text),
        temporal=bool(_TEMPORAL_CUES.search(text)),
        dates=date_mentions(text),
    )
